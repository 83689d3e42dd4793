/** The platform's public OpenAPI description, as the suites that hold the spec and the emulator to it read it. */
export declare const referenceFile: string;
/** Why the description cannot be read here, saying where to put it; undefined when it can. */
export declare const referenceMissing: string | undefined;
