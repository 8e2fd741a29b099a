export type { FeedbackEvent } from "./events.js";
