/**
 * Why no session was opened: the URL, the address policy, the network or the server's refusal. Each message is meant
 * for the person who gave the URL, and never contains its password.
 */
export class ConnectionFailed extends Error {}

/** A connection URL that cannot be used. */
export class UnusableUrl extends ConnectionFailed {}

/** A host that is, or resolves to, an address this instance does not let users reach. */
export class ForbiddenAddress extends ConnectionFailed {}
