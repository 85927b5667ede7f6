import type { PrismaClient } from '@tidemark/db';
import type { SecretBox } from '@tidemark/secret-box';
import type { Logger } from '@tidemark/telemetry';
import type { DeliveryClient } from '../clients/delivery.client.js';
import type { WorkspaceService } from '../services/workspace.service.js';
import { AccountMail } from './account-mail.js';
import { AuthTokenRepository } from './auth-token.repository.js';
import { EmailVerificationService } from './email-verification/email-verification.service.js';
import { InviteRepository } from './invites/invite.repository.js';
import { InviteService } from './invites/invite.service.js';
import { MemberRepository } from './members/member.repository.js';
import { MemberService } from './members/member.service.js';
import { PasswordService } from './passwords/password.service.js';
import { SecondFactorRepository } from './second-factor/second-factor.repository.js';
import { SecondFactorService } from './second-factor/second-factor.service.js';
import { SessionRepository } from './sessions/session.repository.js';
import { SessionService } from './sessions/session.service.js';
import { UserRepository } from './user.repository.js';

/** Members of workspaces, one service per use case; the /auth routes and the auth step call these. */
export interface Accounts {
  sessions: SessionService;
  emailVerification: EmailVerificationService;
  passwords: PasswordService;
  secondFactor: SecondFactorService;
  members: MemberService;
  invites: InviteService;
}

export interface AccountOptions {
  sessionTtlMs: number;
  /** Where the web application lives; e-mails link to it when set. */
  appUrl?: string;
}

export const buildAccounts = (
  prisma: PrismaClient,
  workspaces: WorkspaceService,
  delivery: DeliveryClient,
  /** Seals second-factor seeds at rest. */
  box: SecretBox,
  opts: AccountOptions,
  logger: Logger,
): Accounts => {
  const users = new UserRepository(prisma);
  const tokens = new AuthTokenRepository(prisma);
  const sessionRepo = new SessionRepository(prisma);
  const memberRepo = new MemberRepository(prisma);
  // One sender for every use case, so the mail host's status is asked once a minute in all.
  const mail = new AccountMail(delivery, opts.appUrl, logger.child({ module: 'account-mail' }));
  const secondFactor = new SecondFactorService(new SecondFactorRepository(prisma), users, box);
  const emailVerification = new EmailVerificationService(tokens, users, mail);
  const sessions = new SessionService(
    sessionRepo,
    users,
    memberRepo,
    secondFactor,
    emailVerification,
    workspaces,
    mail,
    opts.sessionTtlMs,
    logger.child({ module: 'session.service' }),
  );
  return {
    sessions,
    emailVerification,
    passwords: new PasswordService(tokens, users, sessionRepo, mail),
    secondFactor,
    members: new MemberService(memberRepo),
    invites: new InviteService(new InviteRepository(prisma), users, memberRepo, sessions, mail),
  };
};
