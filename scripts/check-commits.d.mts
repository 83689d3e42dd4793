export declare const MAX_SUBJECT: number;
export declare const RULE_SINCE: string;
/** What is wrong with a commit message's subject, or undefined. */
export declare function subjectProblem(message: string): string | undefined;
