import { readFileSync } from "node:fs";
import { resourcePath } from "../paths.js";

/** The typical multi-turn game the engine benchmarks play (bulls and cows, 4 digits). */
export function benchEnvironmentCode(): string {
  return readFileSync(resourcePath("environments", "code_breaker.py"), "utf8");
}

/** A guess for each turn: an agent that never wins, so every play lasts `maxTurns` turns. */
export function benchGuess(turn: number): string {
  const guesses = ["0123", "4567", "8901", "2345", "6789", "1357", "2468", "9876"];
  return `My guess: \\boxed{${guesses[turn % guesses.length]}}`;
}
