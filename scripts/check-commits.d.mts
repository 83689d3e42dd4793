export declare const MAX_SUBJECT: number;
export declare const RULE_SINCE: string;
/** What is wrong with a commit message's subject, or undefined. */
export declare function subjectProblem(message: string): string | undefined;
/** Commits after RULE_SINCE, merged before CI checked their branch, allowed their subject's length (by full hash). */
export declare const KNOWN_LONG: ReadonlyMap<string, number>;
