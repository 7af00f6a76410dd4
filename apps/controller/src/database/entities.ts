import { ApiToken } from '../auth/api-token.entity.js';
import { LoginThrottle } from '../auth/login-throttle.entity.js';
import { Session } from '../auth/session.entity.js';
import { User } from '../auth/user.entity.js';

/** Every entity the controller maps; the migration generator diffs against exactly this list. */
export const ENTITIES = [User, Session, ApiToken, LoginThrottle];
