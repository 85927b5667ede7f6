"""The spec's retry rule, against a server that injects each failure (TIDEMARK_FAILURE_URL)."""

import os
import unittest

from tidemark import DEFAULT_TIMEOUT, Tidemark, TidemarkApiError, TidemarkNetworkError, TidemarkTimeoutError

from . import failure_server as fs


@unittest.skipUnless(fs.FAILURE_URL, "TIDEMARK_FAILURE_URL is not set (pnpm test sets it)")
class RetryRule(unittest.TestCase):
    def setUp(self):
        fs.reset()
        self.tm = Tidemark(api_key="service_test", base_url=fs.FAILURE_URL)

    def test_a_get_answered_429_502_503_or_504_is_retried(self):
        for status in (429, 502, 503, 504):
            fs.reset()
            fs.script("GET", "/v1/projects/p_1", [fs.fail(status), {"status": 200, "body": {"id": "p_1"}}])
            self.assertEqual(self.tm.projects.get("p_1")["id"], "p_1")
            self.assertEqual(len(fs.requests("GET", "/v1/projects/p_1")), 2, status)

    def test_at_most_two_retries_then_the_last_envelope(self):
        fs.script("GET", "/v1/projects/p_1", [fs.fail(503), fs.fail(502), fs.fail(503), {"status": 200, "body": {}}])
        with self.assertRaises(TidemarkApiError) as caught:
            self.tm.projects.get("p_1")
        self.assertEqual((caught.exception.status, caught.exception.code), (503, "unavailable"))
        self.assertEqual(caught.exception.request_id, "req_injected")
        self.assertEqual(caught.exception.attempts, 3)
        self.assertEqual(len(fs.requests("GET", "/v1/projects/p_1")), 3)

    def test_a_delete_is_retried(self):
        fs.script("DELETE", "/v1/crawl/c_1", [fs.fail(504), {"status": 200, "body": {"status": "cancelled"}}])
        self.assertEqual(self.tm.crawl.cancel("c_1")["status"], "cancelled")
        self.assertEqual(len(fs.requests("DELETE", "/v1/crawl/c_1")), 2)

    def test_a_post_without_an_idempotency_key_is_never_repeated(self):
        fs.script("POST", "/v1/projects", [fs.fail(503), {"status": 201, "body": {"id": "p_2"}}])
        with self.assertRaises(TidemarkApiError) as caught:
            self.tm.projects.create("https://example.com/")
        self.assertEqual(caught.exception.status, 503)
        sent = fs.requests("POST", "/v1/projects")
        self.assertEqual(len(sent), 1)
        self.assertNotIn("idempotency-key", sent[0]["headers"])

    def test_a_patch_is_never_repeated(self):
        fs.script("PATCH", "/v1/projects/p_1", [fs.fail(502), {"status": 200, "body": {}}])
        with self.assertRaises(TidemarkApiError):
            self.tm.projects.update("p_1", name="x")
        self.assertEqual(len(fs.requests("PATCH", "/v1/projects/p_1")), 1)

    def test_scrape_crawl_and_map_carry_one_key_across_their_retries(self):
        fs.script("POST", "/v1/scrape", [fs.fail(503), {"status": 200, "body": {"id": "s_1"}}])
        fs.script("POST", "/v1/crawl", [fs.fail(429, {"retry-after": "0"}), {"status": 202, "body": {"id": "c_1"}}])
        fs.script("POST", "/v1/map", [{"drop": True}, {"status": 200, "body": {"id": "m_1"}}])
        self.assertEqual(self.tm.scrape.start(url="https://example.com/")["id"], "s_1")
        self.assertEqual(self.tm.crawl.start("https://example.com/")["id"], "c_1")
        self.assertEqual(self.tm.map.start("https://example.com/")["id"], "m_1")
        for path in ("/v1/scrape", "/v1/crawl", "/v1/map"):
            keys = [r["headers"].get("idempotency-key") for r in fs.requests("POST", path)]
            self.assertEqual(len(keys), 2, path)
            self.assertRegex(keys[0], r"^[0-9a-f-]{36}$")
            self.assertEqual(keys[0], keys[1])

    def test_scrape_is_not_repeated_when_the_caller_turns_the_key_off(self):
        fs.script("POST", "/v1/scrape", [fs.fail(503), {"status": 200, "body": {}}])
        with self.assertRaises(TidemarkApiError):
            self.tm.scrape.start(url="https://example.com/", idempotency_key=False)
        self.assertEqual(len(fs.requests("POST", "/v1/scrape")), 1)

    def test_any_post_with_a_callers_key_is_repeated(self):
        fs.script("POST", "/v1/projects", [fs.fail(502), {"status": 201, "body": {"id": "p_3"}}])
        self.assertEqual(self.tm.projects.create("https://example.com/", idempotency_key="create-p3")["id"], "p_3")
        keys = [r["headers"]["idempotency-key"] for r in fs.requests("POST", "/v1/projects")]
        self.assertEqual(keys, ["create-p3", "create-p3"])

    def test_retry_after_is_waited_out(self):
        fs.script("GET", "/v1/me", [fs.fail(429, {"retry-after": "1"}), {"status": 200, "body": {}}])
        self.tm.workspace.me()
        first, second = fs.requests("GET", "/v1/me")
        self.assertGreaterEqual(second["at"] - first["at"], 950)

    def test_a_retry_after_past_the_limit_returns_the_429(self):
        fs.script("GET", "/v1/me", [fs.fail(429, {"retry-after": "3600"}), {"status": 200, "body": {}}])
        with self.assertRaises(TidemarkApiError) as caught:
            self.tm.workspace.me()
        self.assertEqual((caught.exception.status, caught.exception.retry_after), (429, 3600))
        self.assertEqual(len(fs.requests("GET", "/v1/me")), 1)

    def test_a_cut_connection_is_retried_when_safe_and_not_otherwise(self):
        fs.script("GET", "/v1/projects", [{"drop": True}, {"drop": True}, {"status": 200, "body": {"data": [], "next": None}}])
        self.assertEqual(self.tm.projects.list()["data"], [])
        self.assertEqual(len(fs.requests("GET", "/v1/projects")), 3)
        fs.script("POST", "/v1/projects", [{"drop": True}, {"status": 201, "body": {}}])
        with self.assertRaises(TidemarkNetworkError) as caught:
            self.tm.projects.create("https://example.com/")
        self.assertEqual(caught.exception.code, "network")
        self.assertEqual(len(fs.requests("POST", "/v1/projects")), 1)

    def test_other_errors_are_not_retried(self):
        for status in (500, 404, 422):
            fs.script("GET", "/v1/projects/p_9", [{"status": status, "body": {"error": "x", "code": "x", "request_id": None}}])
            with self.assertRaises(TidemarkApiError) as caught:
                self.tm.projects.get("p_9")
            self.assertEqual(caught.exception.status, status)
        self.assertEqual(len(fs.requests("GET", "/v1/projects/p_9")), 3)

    def test_no_answer_ends_at_the_timeout_150_s_by_default_and_is_not_repeated(self):
        self.assertEqual(DEFAULT_TIMEOUT, 150.0)
        self.assertEqual(self.tm.http.timeout, 150.0)
        quick = Tidemark(api_key="k", base_url=fs.FAILURE_URL, timeout=0.3)
        fs.script("GET", "/v1/me", [{"hang": True}, {"status": 200, "body": {}}])
        with self.assertRaises(TidemarkTimeoutError) as caught:
            quick.workspace.me()
        self.assertEqual(caught.exception.code, "timeout")
        self.assertEqual(len(fs.requests("GET", "/v1/me")), 1)


if __name__ == "__main__":
    unittest.main()
