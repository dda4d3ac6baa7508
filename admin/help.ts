/** The admin command line's help text: the reference for operators and scripts. */

/** Full usage, printed by `help` and after usage errors. */
export const USAGE = `Usage: deno task admin <command> [arguments]

Administers a Rookery server. Works whether the server runs or not: when it
runs, the command goes through its admin socket (DATA_DIR/admin.sock);
otherwise the database is opened directly (PGlite under DATA_DIR, or
DATABASE_URL). Configuration comes from the same environment as the server.

Accounts
  account create <username> --email <email> [--password <password>]
                 [--role owner|admin|moderator|user] [--confirmed] [--approved]
                 [--allow-reserved] [--bot]
      Creates a local account. Without --password a random one is generated
      and printed on the last line ("Password: ..."). The role defaults to
      user. The e-mail address counts as unconfirmed unless --confirmed is
      given. The account is approved, except when REGISTRATIONS=approval and
      --approved is absent: then it waits for approval like any sign-up.
      Reserved names (admin, support, ...) need --allow-reserved. --bot marks
      the account as automated.
  account list [--json]
      Lists local accounts: username, e-mail, role, state, creation date.
      State is confirmed/unconfirmed, approved/pending, and disabled if so.
  account confirm <username>      Marks the e-mail address as confirmed.
  account approve <username>      Approves a pending sign-up.
  account disable <username>      Stops the account from signing in or using
                                  its tokens (they come back on enable).
  account enable <username>       Lifts disable.
  account role <username> <role>  Sets the role: owner, admin, moderator, user.
  account reset-password <username>
      Sets a new random password, printed on the last line, and revokes every
      access token of the account.
  account delete <username>
      Deletes the account: profile, sign-in, tokens and follows go; the
      username stays taken for good. Cannot be undone.
  account suspend <username|user@domain>
      Suspends a local or remote account as the admin API does: hidden at
      once, its data deleted after SUSPENSION_GRACE_DAYS (default 30).
  account unsuspend <username|user@domain>   Lifts suspend (what is left).
  account silence <username|user@domain>
      Limits the account: its posts leave public timelines and search for
      non-followers, its notifications to strangers are filtered.
  account unsilence <username|user@domain>   Lifts silence.
  account alias <username> add|remove <user@domain|url>
      Lists (or unlists) another account as an alias (alsoKnownAs) of the
      local account, so that account can move here.
  account move <username> <user@domain|url>
      Moves the local account to another that lists it as an alias (fetched
      fresh): followers everywhere are sent a Move and follow the new
      account; the account shows "moved" and can no longer post.

Access tokens
  token create <username> --scopes "<scopes>"
      Issues an access token for the account (application "Rookery admin
      CLI") and prints it alone on the last line. Scopes are Mastodon's,
      space-separated: read, write, follow, push, profile, admin:read,
      admin:write, or granular ones such as read:statuses, write:media,
      admin:read:accounts.

Instance rules
  rule list [--json]              Lists the rules in order, with their ids.
  rule add <text> [--hint <hint>] Appends a rule (at most 300 characters).
  rule remove <id>                Removes a rule.

Reports
  report list [--resolved] [--limit <n>] [--json]
      Lists open reports (or, with --resolved, resolved ones), newest first,
      100 unless --limit says otherwise (at most 1000): id, state (open,
      assigned, resolved), category, target, reporter, number of statuses,
      date and the start of the comment.
  report resolve <id>
      Marks a report resolved, with no further action. The audit log records
      it with no account (the operator).

Storage maintenance
  media remove [--days <days>] [--dry-run]
      Removes the stored copies of remote attachments cached more than
      <days> days ago (default 7; --older-than is the same). The
      attachments stay: the API shows the media proxy's URL, which fetches
      the file again when it is next looked at. A local user's media is
      never touched. Lists the files and prints the files and bytes freed.
  media remove --prune-profiles | --remove-headers [--include-follows]
               [--days <days>] [--dry-run]
      Removes the copies of remote avatars and headers (or headers only)
      of accounts neither seen nor updated for <days> days and that no
      local account follows or is followed by (unless --include-follows).
  media usage
      Prints what attachments, emoji, card images, avatars, headers and
      archives take (from the sizes the database keeps), and how much of
      it is copies of remote media.
  preview_cards remove [--days <days>] [--dry-run]
      Removes the copies of link card images cached more than <days> days
      ago (default 180); the cards stay and fetch their image again.
  media remove-orphans [--dry-run]
      Checks the media store against the database: deletes the stored
      files no attachment, custom emoji, avatar or header points at (files
      under an hour old are left alone), and lists the rows that point at a
      file the store does not have (those are only reported).
  statuses remove-orphans [--days <days>] [--dry-run]
      Deletes remote statuses older than <days> (default 90) that no local
      account follows the author of, favourited, bookmarked, boosted,
      replied to, quoted, voted in or was mentioned or notified in, that are
      not pinned, boosted, reported or in a thread with a local status; with
      their media. Then deletes old remote attachments no status holds any
      more (unless an edit history shows them). Works in batches of 500, one
      transaction each, skipping rows in use, so it is safe while the server
      runs.
  media migrate [--dry-run] [--delete-local] [--concurrency <n>]
      Copies the media files and archives under DATA_DIR into the bucket
      the S3_* variables name (run it with them set; it never goes through
      a running server). Files already there with the same size are
      skipped, so it can run again to copy what came meanwhile. With
      --delete-local each local file goes once its copy is checked.
      <n> files at a time (default 4).
  media remove, preview_cards remove and statuses remove-orphans show a progress bar on stderr
  (plain lines when it is not a terminal). --dry-run counts what would go
  and changes nothing.

Backups (embedded database)
  backup <file> [--force]
      Writes a consistent, gzipped copy of the embedded database to <file>
      (mode 0600), through the running server when there is one: it holds
      statements back for about a second per 100 MB of database. An
      existing <file> is kept unless --force. On PostgreSQL use pg_dump.
  restore <file> [--replace]
      With the server stopped: creates DATA_DIR/db from a backup. A
      database already there is refused unless --replace, which moves it
      aside to DATA_DIR/db.before-restore-<time>. Newer migrations are
      applied. Media files are not in the backup.

Custom emoji
  emoji add <shortcode> <image file> [--category <name>] [--unlisted]
      Adds a local custom emoji, used in posts and profiles as :shortcode:.
      The shortcode is two or more letters, digits or underscores (case
      matters). The image is a PNG, GIF or WebP file under 256 KB; animated
      ones stay animated, and a still PNG is made for static_url. --unlisted
      keeps it out of the picker (GET /api/v1/custom_emojis); it still works
      in text.
  emoji list [--json]             Lists local emoji: shortcode, category,
                                  picker listing, type, creation date.
  emoji remove <shortcode>        Removes a local emoji and its files; posts
                                  that used it keep the :shortcode: text.

Trends and suggestions
  trends pending [--json]         Lists what trends now without a review:
                                  kind, id, accounts, score, tag/URI/URL.
  trends allow <tag|status|link> <name, status id or URL>
      Allows a trending item. With TRENDS_REVIEW=true only allowed items
      are listed in /api/v1/trends/*.
  trends reject <tag|status|link> <name, status id or URL>
      Rejects an item: it is never listed, whatever TRENDS_REVIEW says.
  suggestions feature <username or user@domain>
      Features an account in everyone's follow suggestions (if it is
      discoverable).
  suggestions unfeature <username or user@domain>
  suggestions list                Lists the featured accounts.

Annual reports
  annual-report generate <year> [--account <username>]
      Queues the year's annual reports ("Wrapstodon", GET
      /api/v1/annual_reports) of every local account that posted that year,
      or of one account; the worker makes them. Reports already made are
      kept. With ANNUAL_REPORTS=true the worker does this for the current
      year from the 10th to the 31st of December.

Roles and server settings
  role show                       Lists each role's settings.
  role set <role> [--require-2fa on|off] [--collection-limit N]
                  [--email-subscriptions on|off]
      Changes a role's settings (user, moderator, admin, owner): whether
      its members must use two-factor sign-in, how many collections they
      may make, whether they may take e-mail subscriptions.
  setting show                    Lists the server-wide switches.
  setting set email_subscriptions <on|off>
      Turns e-mail subscriptions to accounts on or off (EMAIL_SUBSCRIPTIONS
      must be true as well).

Announcements
  announcement create --text <text> [--starts-at <time> --ends-at <time>]
                      [--all-day] [--unpublished]
      Creates an announcement, shown by apps to every signed-in user until
      it ends or is unpublished. The text is written as a post: links,
      @mentions of known accounts and #hashtags become links, :shortcode:
      shows a custom emoji. --starts-at and --ends-at (both or neither) give
      the time of the event it announces, as 2025-06-01 or
      2025-06-01T18:00 (UTC unless a zone such as +02:00 is given); once
      --ends-at has passed it is no longer shown. --all-day shows them as
      dates. --unpublished keeps it hidden until "announcement publish".
  announcement list [--json]      Lists announcements, newest first, with
                                  their ids and state.
  announcement publish <id>       Shows an unpublished announcement.
  announcement unpublish <id>     Hides it again (reactions are kept).
  announcement delete <id>        Deletes it with its reactions.
Blocking servers
  domain block <domain> [--severity silence|suspend|noop] [--reject-media]
               [--reject-reports] [--obfuscate] [--public-comment <text>]
               [--private-comment <text>]
      Blocks a server and its subdomains (default severity: suspend).
      suspend: nothing is received from it, delivered to it or fetched from
      it; its accounts are suspended and follows with them end. silence:
      its posts stay out of public and hashtag timelines and search for
      those who do not follow its accounts. noop: only the --reject-* flags.
      --reject-media keeps its media as links only; --reject-reports ignores
      its reports. The comments show in the admin API (and, the public one,
      in /api/v1/instance/domain_blocks per SHOW_DOMAIN_BLOCKS_RATIONALE).
  domain unblock <domain>         Lifts the block; its suspended accounts
                                  are restored (follows are not).
  domain list [--json]            Lists the blocks, newest first.

  help                            Shows this text.

Usernames may be written with or without a leading @. Quote values that
contain spaces.

Exit codes: 0 success, 1 failure (invalid value, unknown account, database
or server unreachable), 2 usage error (unknown command or option, missing
argument, unknown scope or role). Errors go to stderr.
`;
