/**
 * The instance's own pages: the landing page at `/` (what this server is,
 * a few figures, the way in) and `/about` (description, rules, contact,
 * moderated servers when the operator publishes them), and the configured
 * legal documents.
 */
import type { FC } from "hono/jsx";
import { raw } from "hono/html";
import type { Account } from "../../../api/entities/account.ts";
import { DisplayName } from "./status_card.tsx";
import { PublicLayout, type PublicViewer } from "./layout.tsx";
import { localUris } from "../../../model/uris.ts";
import { htmlToText } from "../../../actors/formatting/html_to_text.ts";

export interface InstanceSummary {
  title: string;
  origin: string;
  /** The short description (plain text). */
  description: string;
  thumbnail: string;
  userCount: number;
  statusCount: number;
  registrations: "open" | "approval" | "closed";
}

export const LandingPage: FC<{ instance: InstanceSummary; viewer: PublicViewer | null }> = (
  { instance, viewer },
) => (
  <PublicLayout
    title={instance.title}
    instanceTitle={instance.title}
    viewer={viewer}
    meta={{
      description: instance.description,
      url: `${instance.origin}/`,
      image: instance.thumbnail,
    }}
  >
    <img class="thumbnail" src={instance.thumbnail} alt="" />
    <h1>{instance.title}</h1>
    <p>{instance.description}</p>
    <ul class="figures" aria-label="Figures">
      <li>
        <strong>{instance.userCount}</strong> users
      </li>
      <li>
        <strong>{instance.statusCount}</strong> posts
      </li>
    </ul>
    <section class="card" aria-label="Join or sign in">
      {viewer
        ? (
          <p>
            Signed in as <strong>@{viewer.username}</strong>.{" "}
            <a class="button primary" href={localUris("").profile(viewer.username)}>Your profile</a>
          </p>
        )
        : (
          <p>
            {instance.registrations === "open"
              ? <a class="button primary" href="/auth/sign_up">Create an account</a>
              : null}
            {instance.registrations === "approval"
              ? <a class="button primary" href="/auth/sign_up">Apply for an account</a>
              : null}
            <a class="button" href="/auth/sign_in">Sign in</a>
          </p>
        )}
      {instance.registrations === "closed" && !viewer
        ? <p class="muted">Sign-ups are closed on this server.</p>
        : null}
      <p>
        <a href="/about">About this server</a>
      </p>
    </section>
  </PublicLayout>
);

export interface ModeratedServer {
  domain: string;
  severity: string;
  comment: string | null;
}

export interface AboutPageProps {
  instance: InstanceSummary;
  /** The extended description as HTML (the operator's own text). */
  extended: string;
  rules: { text: string; hint: string }[];
  contactAccount: Account | null;
  contactEmail: string;
  /** Null when SHOW_DOMAIN_BLOCKS keeps the list from this visitor. */
  moderated: ModeratedServer[] | null;
  viewer: PublicViewer | null;
}

const SEVERITY: Record<string, string> = {
  silence: "Limited",
  suspend: "Suspended",
};

/** The servers this one moderates, as SHOW_DOMAIN_BLOCKS lets the visitor see them. */
const ModeratedServers: FC<{ moderated: ModeratedServer[] }> = ({ moderated }) => (
  <section aria-labelledby="moderated">
    <h2 id="moderated">Moderated servers</h2>
    {moderated.length
      ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Server</th>
              <th scope="col">Severity</th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {moderated.map((m) => (
              <tr>
                <td>{m.domain}</td>
                <td>{SEVERITY[m.severity] ?? m.severity}</td>
                <td>{m.comment ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )
      : <p class="muted">No servers are moderated.</p>}
  </section>
);

/** Who runs the server and how to write to them. */
const Contact: FC<Pick<AboutPageProps, "contactAccount" | "contactEmail">> = (
  { contactAccount, contactEmail },
) => (
  <section aria-labelledby="contact">
    <h2 id="contact">Contact</h2>
    {contactAccount
      ? (
        <p>
          Administered by{" "}
          <a href={contactAccount.url ?? contactAccount.uri}>
            <DisplayName account={contactAccount} /> (@{contactAccount.acct})
          </a>
        </p>
      )
      : null}
    {contactEmail
      ? (
        <p>
          E-mail: <a href={`mailto:${contactEmail}`}>{contactEmail}</a>
        </p>
      )
      : null}
    {!contactAccount && !contactEmail ? <p class="muted">No contact given.</p> : null}
  </section>
);
export const AboutPage: FC<AboutPageProps> = (
  { instance, extended, rules, contactAccount, contactEmail, moderated, viewer },
) => (
  <PublicLayout
    title={`About ${instance.title}`}
    instanceTitle={instance.title}
    viewer={viewer}
    meta={{
      description: instance.description || htmlToText(extended, { oneLine: true }),
      url: `${instance.origin}/about`,
      image: instance.thumbnail,
    }}
  >
    <h1>About {instance.title}</h1>
    <p>{instance.description}</p>
    {extended ? <section class="card" aria-label="Description">{raw(extended)}</section> : null}
    <section aria-labelledby="rules">
      <h2 id="rules">Server rules</h2>
      {rules.length
        ? (
          <ol class="rules">
            {rules.map((r) => (
              <li>
                {r.text}
                {r.hint ? <div class="muted">{r.hint}</div> : null}
              </li>
            ))}
          </ol>
        )
        : <p class="muted">This server has not published rules.</p>}
    </section>
    <Contact contactAccount={contactAccount} contactEmail={contactEmail} />
    {moderated ? <ModeratedServers moderated={moderated} /> : null}
  </PublicLayout>
);

/** A configured legal document (privacy policy, terms of service); its HTML is the operator's. */
export const DocumentPage: FC<{
  instanceTitle: string;
  title: string;
  updated: string;
  content: string;
  viewer: PublicViewer | null;
}> = ({ instanceTitle, title, updated, content, viewer }) => (
  <PublicLayout title={title} instanceTitle={instanceTitle} viewer={viewer}>
    <h1>{title}</h1>
    <p class="muted">Last updated {updated}</p>
    <div class="card">{raw(content)}</div>
  </PublicLayout>
);
