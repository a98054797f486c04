/** One test of a code problem: standard input and the expected output, or a function's arguments (one JSON value a line) and its JSON result. */
export interface CodeTest {
  input: string;
  output: string;
  testtype: "stdin" | "functional";
  /** The method (of `class Solution`) or function a functional test calls. */
  funcName?: string;
}

/** A LiveCodeBench-style problem: the statement, optional starter code, public and hidden tests. */
export interface CodeProblem {
  index: number;
  id: string;
  question: string;
  starterCode: string;
  tests: CodeTest[];
  difficulty: string | null;
}
