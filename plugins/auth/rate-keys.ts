/** What the auth plugin's rate limiter counts: attempts per e-mail address and per client address, by purpose. */
export const emailKey = (purpose: string, email: string) => `${purpose}-email:${email.trim().toLowerCase()}`;
export const ipKey = (purpose: string, ip: string) => `${purpose}-ip:${ip}`;
