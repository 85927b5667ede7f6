"""The client against the running fleet (pnpm test starts it and sets TIDEMARK_API_URL,
TIDEMARK_API_KEY, TIDEMARK_TEST_SITE — the test web's handbook.test — and TIDEMARK_TEST_PAGES)."""

import http.server
import os
import tempfile
import threading
import unittest

from tidemark import Tidemark, TidemarkApiError, verify_webhook

SITE = os.environ.get("TIDEMARK_TEST_SITE", "").rstrip("/")
PAGES = int(os.environ.get("TIDEMARK_TEST_PAGES", "0"))
ROWS = int(os.environ.get("TIDEMARK_TEST_ROWS", "0"))


@unittest.skipUnless(SITE and os.environ.get("TIDEMARK_API_KEY"), "no fleet: pnpm test starts one")
class AgainstTheFleet(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tm = Tidemark()

    def test_scrapes_one_page(self):
        job = self.tm.scrape.start(url=f"{SITE}/guides/tides", formats="markdown,links")
        if job["status"] != "done":
            job = self.tm.scrape.wait(job["id"])
        row = job["data"][0] if job["data"] else self.tm.scrape.get(job["id"])["data"][0]
        self.assertEqual(row["verdict"], "ok")
        self.assertIn("# Tides", row["markdown"])
        self.assertGreater(len(row["links"]), 20)

    def test_crawls_waits_with_progress_and_pages_through_every_row(self):
        started = self.tm.crawl.start(f"{SITE}/", limit=40)
        seen = []
        end = self.tm.crawl.wait(started["id"], interval=0.2, on_progress=lambda s: seen.append(s["progress"]))
        self.assertEqual(end["status"], "done")
        self.assertEqual(end["progress"]["done"], ROWS)
        self.assertEqual(seen[-1], end["progress"])
        urls = [row["url"] for row in self.tm.crawl.pages(started["id"], limit=5, formats="")]
        self.assertEqual(len(urls), ROWS)
        self.assertEqual(len(set(urls)), ROWS)
        self.assertGreater(len(self.tm.crawl.page(started["id"], f"{SITE}/reference/bylaws")["markdown"]), 12_000)

    def test_maps_the_site(self):
        job = self.tm.map.start(f"{SITE}/")
        if job["status"] != "done":
            job = self.tm.map.wait(job["id"])
        urls = [row["url"] for row in self.tm.map.rows(job["id"], limit=10)]
        self.assertEqual(len(urls), PAGES)
        self.assertIn(f"{SITE}/guides/locks", urls)

    def test_projects_runs_changes_pages_and_exports(self):
        made = [self.tm.projects.create(f"{SITE}/", name=f"py {n}", config={"max_pages": 40}) for n in range(3)]
        listed = [p["id"] for p in self.tm.projects.all(limit=2)]
        for p in made:
            self.assertIn(p["id"], listed)
        project = made[0]
        self.assertEqual(self.tm.projects.update(project["id"], name="renamed")["name"], "renamed")
        run = self.tm.runs.start(project["id"])
        done = self.tm.runs.wait_for_changes(project["id"], run["id"], interval=0.3)
        self.assertEqual(done["run"]["status"], "done")
        self.assertEqual(done["changes"]["runId"], run["id"])
        self.assertEqual(done["changes"]["counts"]["added"], PAGES)
        self.assertEqual(self.tm.changes.get(project["id"])["runId"], run["id"])
        self.assertEqual(len(list(self.tm.pages.all(project["id"], limit=10))), ROWS)
        self.assertIn("# Locks", self.tm.pages.content(project["id"], f"{SITE}/guides/locks")["markdown"])
        self.assertGreater(len(self.tm.pages.search(project["id"], '"Harbour Handbook"')["matches"]), 0)
        self.assertEqual(self.tm.runs.list(project["id"])["data"][0]["id"], run["id"])

        totals = []
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "llms.txt")
            written = self.tm.exports.download(project["id"], path, "llms", on_bytes=totals.append)
            with open(path, encoding="utf-8") as f:
                text = f.read()
        self.assertEqual(written, len(text.encode("utf-8")))
        self.assertEqual(totals[-1], written)
        self.assertIn("# Harbour Handbook", text)
        self.assertIn(f"{SITE}/guides/locks", text)

    def test_errors_are_typed_with_the_envelope(self):
        with self.assertRaises(TidemarkApiError) as caught:
            self.tm.projects.get("p_nope")
        self.assertEqual((caught.exception.status, caught.exception.code), (404, "not_found"))
        self.assertTrue(caught.exception.request_id)

    def test_verifies_a_real_webhook_from_the_fleet(self):
        received = []

        class Receiver(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                received.append((dict(self.headers.items()), body))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            hook = f"http://127.0.0.1:{server.server_address[1]}/hook"
            crawl = self.tm.crawl.start(f"{SITE}/guides/", limit=2, webhook={"url": hook, "events": ["crawl.completed"]})
            self.tm.crawl.wait(crawl["id"], interval=0.2)
            for _ in range(300):
                if received:
                    break
                threading.Event().wait(0.1)
            headers, body = received[0]
            message = verify_webhook(crawl["webhookSecret"], body, headers)
            self.assertEqual((message["event"], message["job"]["id"]), ("crawl.completed", crawl["id"]))
        finally:
            server.shutdown()


if __name__ == "__main__":
    unittest.main()
