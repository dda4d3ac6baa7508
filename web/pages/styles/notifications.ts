/**
 * Notifications, profiles, lists and the other app pages of engineer B's
 * part. Part of the one stylesheet (../style.ts).
 */
export const NOTIFICATIONS = `
`;
