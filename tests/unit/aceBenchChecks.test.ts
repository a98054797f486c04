// ACEBench's agent scoring rules, checked against values worked out by hand.
import { describe, expect, it } from "vitest";
import { aceBenchProcessAccuracy, aceBenchStateErrors, pythonEquals } from "../../main/eval/aceBenchChecks.js";

describe("ACEBench's end-state check", () => {
  const truth: Record<string, Record<string, unknown>>[] = [{ BaseApi: { wifi: true, logged_in: true } }, { MessageApi: { inbox: { "1": { text: "hi" }, "2": { text: "yo" } } } }];

  it("passes a state equal to the possible answer, with Python's == on numbers and booleans", () => {
    expect(aceBenchStateErrors(truth, [{ MessageApi: { inbox: { "1": { text: "hi" }, "2": { text: "yo" } } } }, { BaseApi: { wifi: 1, logged_in: true } }])).toEqual([]);
    expect(pythonEquals(412, 412.0)).toBe(true);
    expect(pythonEquals(true, 1)).toBe(true);
    expect(pythonEquals([1, 2], [2, 1])).toBe(false);
    expect(pythonEquals({ a: 1 }, { a: 1, b: 2 })).toBe(false);
  });

  it("fails a wrong number of classes, a wrong attribute, a missing key and an attribute the answer lacks", () => {
    expect(aceBenchStateErrors(truth, [{ BaseApi: { wifi: true, logged_in: true } }])).toEqual(["wrong number of classes: the possible answer has 2, the end state 1"]);
    expect(aceBenchStateErrors(truth, [{ BaseApi: { wifi: false, logged_in: true } }, { MessageApi: { inbox: { "1": { text: "hi" } } } }])).toEqual([
      "BaseApi.wifi: expected true, got false",
      'MessageApi.inbox: missing 2 (expected {"1":{"text":"hi"},"2":{"text":"yo"}}, got {"1":{"text":"hi"}})',
    ]);
    expect(aceBenchStateErrors([{ BaseApi: { wifi: true } }], [{ BaseApi: { wifi: true, battery: 3 } }])).toEqual(["BaseApi.battery is not in the possible answer"]);
    // Keys the model's object has beyond the answer's are not checked; an answer's class no saved class is named like is not either.
    expect(aceBenchStateErrors([{ M: { inbox: { a: 1 } } }], [{ M: { inbox: { a: 1, b: 2 } } }])).toEqual([]);
    expect(aceBenchStateErrors([{ ReminderAPI: { reminder_list: {} } }], [{ ReminderApi: { reminder_list: { x: 1 } } }])).toEqual([]);
  });
});

describe("ACEBench's process accuracy", () => {
  it("counts milestones found in order among the executed replies", () => {
    const stones = ["[a()]", "[b(x=1)]", "[c()]"];
    expect(aceBenchProcessAccuracy(stones, [" [a()] ", "[c()]", "[b(x=1)]"], false)).toBeCloseTo(2 / 3, 12);
    expect(aceBenchProcessAccuracy(stones, ["[b(x=1)]", "[a()]"], false)).toBeCloseTo(1 / 3, 12);
    expect(aceBenchProcessAccuracy(stones, [], false)).toBe(0);
    expect(aceBenchProcessAccuracy([], [], false)).toBe(1);
    expect(aceBenchProcessAccuracy(stones, [], true)).toBe(1);
  });

  it("takes the best of alternative milestone lists, rounded to 3 places", () => {
    // A milestone not found uses up the rest of the search (as in ACEBench): [a, b, c] against [a, c] finds a only (1/3); [a, d] finds a (1/2).
    expect(aceBenchProcessAccuracy([["[a()]", "[b()]", "[c()]"], ["[a()]", "[d()]"]], ["[a()]", "[c()]"], false)).toBe(0.5);
    expect(aceBenchProcessAccuracy([["[a()]", "[b()]", "[c()]"]], ["[a()]", "[b()]"], false)).toBe(0.667);
    expect(aceBenchProcessAccuracy([["[x()]"], ["[a()]", "[d()]"]], ["[a()]", "[d()]"], false)).toBe(1);
  });
});
