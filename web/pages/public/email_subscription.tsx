/**
 * The pages a subscription mail links to: one button that confirms or
 * unsubscribes (a link alone must not do it: mail scanners follow links),
 * and the page that says it is done.
 */
import type { FC } from "hono/jsx";
import { PublicLayout } from "./layout.tsx";

export interface SubscriptionLinkPageProps {
  purpose: "confirm" | "unsubscribe";
  username: string;
  /** The form's target, with its token. */
  action: string;
  instanceTitle: string;
}

export const SubscriptionLinkPage: FC<SubscriptionLinkPageProps> = (
  { purpose, username, action, instanceTitle },
) => {
  const title = purpose === "confirm" ? "Confirm your subscription" : "Unsubscribe";
  return (
    <PublicLayout title={title} instanceTitle={instanceTitle} meta={{ noindex: true }}>
      <h1>{title}</h1>
      <p>
        {purpose === "confirm"
          ? `Get the new public posts of @${username} by e-mail.`
          : `Stop getting the posts of @${username} by e-mail.`}
      </p>
      <form method="post" action={action}>
        <button type="submit" class="button primary">
          {purpose === "confirm" ? "Confirm" : "Unsubscribe"}
        </button>
      </form>
    </PublicLayout>
  );
};

export const SubscriptionDonePage: FC<
  { purpose: "confirm" | "unsubscribe"; username: string; instanceTitle: string }
> = ({ purpose, username, instanceTitle }) => {
  const title = purpose === "confirm" ? "Subscription confirmed" : "Unsubscribed";
  return (
    <PublicLayout title={title} instanceTitle={instanceTitle} meta={{ noindex: true }}>
      <h1>{title}</h1>
      <p>
        {purpose === "confirm"
          ? `You will get the new public posts of @${username} by e-mail.`
          : `You will get no more posts of @${username} by e-mail.`}
      </p>
    </PublicLayout>
  );
};
