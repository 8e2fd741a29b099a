/**
 * The built-in demo's tasks: short requests of the kinds an agent's steps carry, written for this project (no
 * dataset), each with a subtask label. They are routed, not answered: the demo's outcomes are simulated.
 */

/** The subtasks of the demo's tasks. */
export const DEMO_SUBTASKS = ["coding", "math", "writing", "retrieval", "chit-chat"] as const;
export type DemoSubtask = (typeof DEMO_SUBTASKS)[number];

/** One demo task: an id, its subtask, and the request text the router scores. */
export interface DemoTask {
  readonly id: string;
  readonly subtask: DemoSubtask;
  readonly text: string;
}

const coding = [
  "Write a Python function that returns the n-th Fibonacci number in O(log n) time using matrix exponentiation.",
  "Fix the bug: this JavaScript loop prints 5 five times instead of 0 to 4. for (var i = 0; i < 5; i++) setTimeout(() => console.log(i));",
  "Write a SQL query that returns, for each customer, their three most recent orders with the order total.",
  "Implement a thread-safe LRU cache in Java with get and put in O(1).",
  "Explain what this regular expression matches and give two examples: ^(?=.*\\d)(?=.*[a-z]).{8,}$",
  "Write a TypeScript type that makes every property of a nested object readonly, recursively.",
  "Refactor this function to avoid the nested callbacks by using async/await: readFile(a, (e, x) => readFile(b, (e2, y) => done(x + y))).",
  "Write a bash one-liner that finds the ten largest files under the current directory.",
  "Given a list of intervals, merge all overlapping intervals. Write the function in Go with tests.",
];
const math = [
  "What is the derivative of x^3 * ln(x)?",
  "A train leaves at 9:40 and travels 210 km at 84 km/h. At what time does it arrive?",
  "Prove that the square root of 2 is irrational.",
  "How many ways can 8 people sit around a round table if two of them refuse to sit next to each other?",
  "Solve for x: 2^(x+1) + 2^x = 48.",
  "What is the probability of getting at least one six in four rolls of a fair die?",
  "Compute the eigenvalues of the matrix [[2, 1], [1, 2]].",
  "If a loan of $12,000 has 6% yearly interest compounded monthly, what is the monthly payment over 5 years?",
  "Find the sum of all integers from 1 to 1000 that are divisible by 3 or 5.",
];
const writing = [
  "Write a polite email to a client explaining that their delivery will be two weeks late.",
  "Summarise the plot of Romeo and Juliet in three sentences for a ten-year-old.",
  "Rewrite this sentence to be more concise: In the event that the meeting is postponed, we will be notifying all participants at the earliest possible time.",
  "Write a product description of a stainless steel water bottle in under 60 words.",
  "Draft a short LinkedIn post announcing that our team shipped version 2.0 of our app.",
  "Write a haiku about debugging late at night.",
  "Give three alternative titles for a blog post about saving money on groceries.",
  "Write the opening paragraph of a mystery story set in a lighthouse.",
  "Turn these notes into a clear meeting summary: budget approved, launch moved to May, Sam owns QA, hire one designer.",
];
const retrieval = [
  "What is the capital of Australia?",
  "Who wrote the novel One Hundred Years of Solitude?",
  "In what year did the Berlin Wall fall?",
  "What is the boiling point of water at the top of Mount Everest, approximately?",
  "Which planet in the solar system has the most moons?",
  "What does the HTTP status code 429 mean?",
  "Who was the first woman to win a Nobel Prize, and in which field?",
  "What is the chemical formula of table salt?",
  "Which river flows through Budapest?",
];
const chitChat = [
  "Hi! How are you doing today?",
  "Can you recommend a good movie for a rainy Sunday?",
  "I'm feeling a bit nervous about my job interview tomorrow.",
  "What's your favourite season and why?",
  "Tell me a fun fact about octopuses.",
  "Thanks for the help earlier, that worked!",
  "Any tips for keeping a houseplant alive?",
  "What should I cook for dinner tonight with eggs, spinach and cheese?",
  "Tell me a short joke about computers.",
];

/** The 45 demo tasks, 9 per subtask. */
export const DEMO_TASKS: readonly DemoTask[] = (
  [
    ["coding", coding],
    ["math", math],
    ["writing", writing],
    ["retrieval", retrieval],
    ["chit-chat", chitChat],
  ] as const
).flatMap(([subtask, texts]) => texts.map((text, i) => ({ id: `${subtask}-${i + 1}`, subtask, text })));
