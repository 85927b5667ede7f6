import unittest

from tidemark import WebhookVerificationError, verify_service_signature, verify_standard_signature, verify_webhook

# The Standard Webhooks specification's own test vector.
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
MSG_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
TIMESTAMP = "1614265330"
BODY = '{"test": 2432232314}'
SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
AT = float(TIMESTAMP)
# HMAC-SHA256 of the body under the whole secret string (X-Service-Signature), from Node's crypto.
SERVICE = "sha256=80ec8a89ce3cd22133a1066caecb4d04fea7467657c8514d717ec42c38a5c94c"


class StandardWebhooks(unittest.TestCase):
    def test_the_reference_vector_verifies(self):
        self.assertTrue(verify_standard_signature(SECRET, BODY, MSG_ID, TIMESTAMP, SIGNATURE, now=AT))
        self.assertTrue(verify_standard_signature(SECRET, BODY.encode(), MSG_ID, TIMESTAMP, SIGNATURE, now=AT))

    def test_one_matching_entry_among_several_is_enough(self):
        both = "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= " + SIGNATURE
        self.assertTrue(verify_standard_signature(SECRET, BODY, MSG_ID, TIMESTAMP, both, now=AT))

    def test_a_changed_body_id_or_secret_or_an_old_message_is_refused(self):
        self.assertFalse(verify_standard_signature(SECRET, '{"test": 2432232315}', MSG_ID, TIMESTAMP, SIGNATURE, now=AT))
        self.assertFalse(verify_standard_signature(SECRET, BODY, "msg_other", TIMESTAMP, SIGNATURE, now=AT))
        self.assertFalse(verify_standard_signature("whsec_c2VjcmV0", BODY, MSG_ID, TIMESTAMP, SIGNATURE, now=AT))
        self.assertFalse(verify_standard_signature(SECRET, BODY, MSG_ID, TIMESTAMP, SIGNATURE, now=AT + 301))
        self.assertTrue(verify_standard_signature(SECRET, BODY, MSG_ID, TIMESTAMP, SIGNATURE, now=AT + 299))


class ServiceSignature(unittest.TestCase):
    def test_sha256_hex_of_the_raw_body_under_the_whole_secret(self):
        self.assertTrue(verify_service_signature(SECRET, BODY, SERVICE))
        self.assertFalse(verify_service_signature(SECRET, BODY + " ", SERVICE))
        self.assertFalse(verify_service_signature(SECRET, BODY, SERVICE[len("sha256="):]))


class VerifyWebhook(unittest.TestCase):
    headers = {
        "X-Service-Signature": SERVICE,
        "webhook-id": MSG_ID,
        "webhook-timestamp": TIMESTAMP,
        "webhook-signature": SIGNATURE,
    }

    def test_every_scheme_present_must_verify(self):
        self.assertEqual(verify_webhook(SECRET, BODY, self.headers, now=AT), {"test": 2432232314})
        wrong = dict(self.headers, **{"X-Service-Signature": "sha256=" + "0" * 64})
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(SECRET, BODY, wrong, now=AT)
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(SECRET, BODY, self.headers, now=AT + 3600)
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(SECRET, BODY, {})


if __name__ == "__main__":
    unittest.main()
