import { describe, expect, it } from "vitest";
import { filterFromQuery, queryFromFilter } from "../../../renderer/src/features/environments/lib/filterFromQuery.js";
import { memoryLabel } from "../../../renderer/src/lib/environments/memoryLabel.js";

describe("the Environments list's memory, skill and run filters", () => {
  it("reads memory state, skill and the new orders from the URL and writes them back", () => {
    const filter = filterFromQuery(new URLSearchParams("memory=pinned&skill=Logical%20Deduction&order=memory&run=2"));
    expect(filter).toEqual({ runId: 2, memory: "pinned", skill: "Logical Deduction", order: "memory" });
    expect(queryFromFilter(filter)).toMatchObject({ run: "2", memory: "pinned", skill: "Logical Deduction", order: "memory" });
    for (const order of ["run", "skill", "memory"]) expect(filterFromQuery(new URLSearchParams(`order=${order}`)).order).toBe(order);
    for (const memory of ["banned", "inMemory", "none"]) expect(filterFromQuery(new URLSearchParams(`memory=${memory}`)).memory).toBe(memory);
  });

  it("ignores a memory state it does not know and a blank skill", () => {
    expect(filterFromQuery(new URLSearchParams("memory=forgotten&skill=%20%20"))).toEqual({});
  });

  it("labels a row's memory state", () => {
    expect(memoryLabel({ pinned: true, banned: false, inMemory: true })).toBe("pinned · in memory");
    expect(memoryLabel({ pinned: false, banned: true, inMemory: false })).toBe("banned");
    expect(memoryLabel({ pinned: false, banned: false, inMemory: true })).toBe("in memory");
    expect(memoryLabel({ pinned: false, banned: false, inMemory: false })).toBe("–");
    expect(memoryLabel({})).toBe("–");
  });
});
