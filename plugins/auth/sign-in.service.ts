import { unauthenticated } from '../../core/errors.ts';
import type { UserRow, UserService } from './users.service.ts';
import type { SessionService } from './sessions.service.ts';
import type { SignInLimiter } from './sign-in-limiter.ts';

export interface IssuedSession {
  user: UserRow;
  token: string;
  expiresAt: Date;
}

/** Password sign-in: rate limit first (a right password waits out its address's or its account's lock too), then verify, then count. */
export class SignInService {
  constructor(
    private readonly users: UserService,
    private readonly sessions: SessionService,
    private readonly limiter: SignInLimiter,
  ) {}

  async withPassword(email: string, password: string, client: { ip: string; userAgent?: string }): Promise<IssuedSession> {
    await this.limiter.assertAllowed(email, client.ip);
    const user = await this.users.verifyCredentials(email, password);
    if (!user) {
      await this.limiter.recordFailure(email, client.ip);
      throw unauthenticated('The email or password is wrong.');
    }
    await this.limiter.clear(email, client.ip);
    return { user, ...(await this.sessions.issue(user.id, client.userAgent)) };
  }
}
