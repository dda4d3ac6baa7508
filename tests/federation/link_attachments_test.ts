/**
 * `Link` attachments and preview cards (FEP-8967, Mastodon 4.7): a remote
 * post's `Link` attachment names the page its card shows, over the links of
 * its text, and is never a media attachment; an Update that changes it
 * changes the card. Our own Notes carry their card's page as a `Link`
 * attachment. The pages are served by the preview-card tests' page server,
 * which counts what is fetched; the author is a fake peer.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { arrived } from "../fixtures/federation.ts";
import { postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { getStatus, startPageServer, waitForCard } from "../cards/helpers.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;

test("Link attachments choose the preview card, both ways", async (t) => {
  const pages = await startPageServer();
  const peer = await startFakePeer();
  const rookery = await startInstance();
  const { base } = pages;
  try {
    const reader = await createUser(rookery, "reader");
    const author = peer.publishActor("author");
    const send = (request: Request) => rookery.request(request.url, request);
    const deliver = (activity: unknown) =>
      peer.deliver(`${rookery.origin}/inbox`, activity, { keyId: `${author}#main-key`, send })
        .then(statusOf);
    const note = {
      id: `${author}/notes/1`,
      type: "Note",
      attributedTo: author,
      to: [PUBLIC],
      published: new Date(Date.now() - 60_000).toISOString(),
      content: `<p>Read <a href="${base}/plain?text">this</a></p>`,
      attachment: [{ type: "Link", href: `${base}/og?link`, mediaType: "text/html" }],
    };

    let statusId = "";
    await t.step("inbound: the Link's page is the card, and no media", async () => {
      const create = { "@context": AS, id: `${note.id}/activity`, type: "Create", actor: author };
      assert.equal(await deliver({ ...create, object: note }), 202);
      statusId = (await arrived(rookery, note.id)).id;
      const card = await waitForCard(rookery, reader, statusId);
      assert.equal(card.url, `${base}/og?link`);
      assert.equal(card.title, "Fish & Chips");
      assert.deepEqual((await getStatus(rookery, reader, statusId)).media_attachments, []);
      assert.equal(pages.count("/plain?text"), 0, "the text's link was not fetched");
    });

    await t.step("an Update that changes the Link changes the card", async () => {
      const edited = {
        ...note,
        updated: new Date().toISOString(),
        attachment: [{ type: "Link", href: `${base}/second`, mediaType: "text/html" }],
      };
      const update = { "@context": AS, id: `${note.id}#updates/1`, type: "Update", actor: author };
      assert.equal(await deliver({ ...update, object: edited }), 202);
      const card = await waitForCard(rookery, reader, statusId, (c) => c?.title === "Second page");
      assert.equal(card.url, `${base}/second`);
    });

    await t.step("outbound: a Note with a card carries it as a Link attachment", async () => {
      const post = await postStatus(rookery, reader, `A story: ${base}/og?local`);
      await waitForCard(rookery, reader, post.id);
      const res = await rookery.request(post.uri, {
        headers: { Accept: "application/activity+json" },
      });
      assert.equal(res.status, 200);
      const document = await res.json();
      assert.deepEqual(document.attachment, [
        { type: "Link", href: `${base}/og?local`, mediaType: "text/html" },
      ]);
    });
  } finally {
    await rookery.close({ destroy: true });
    await peer.close();
    await pages.close();
  }
});
