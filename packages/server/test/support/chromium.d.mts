// Types of chromium.mjs (plain JavaScript, shared with scripts/test.mjs).
type Env = Readonly<Record<string, string | undefined>>;
export declare function chromiumPath(env?: Env): string;
export declare function isCi(env?: Env): boolean;
export declare function chromiumFound(env?: Env): boolean;
export declare function browserSkipReason(env?: Env): string | undefined;
export declare function browserSkipNotice(files: readonly string[], env?: Env): string | undefined;
