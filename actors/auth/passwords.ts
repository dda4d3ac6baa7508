/** Password hashing with argon2id (OWASP's recommended parameters). */
import { hash, verify } from "@node-rs/argon2";

const ARGON2ID = 2; // @node-rs/argon2's Algorithm.Argon2id (a const enum, so not importable)

export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 });
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

/** A readable random password for accounts created without one. */
export function generatePassword(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_");
}
