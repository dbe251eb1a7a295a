import Foundation
import TesseraService
import Testing

@Suite struct WebhookRequestTests {
    static let url = URL(string: "http://127.0.0.1:9/hooks")!
    static let date = Date(timeIntervalSince1970: 1_767_225_600.25)

    static func request(secret: String?) throws -> WebhookRequest {
        let status = WebhookDiffTests.status(.running, inputs: [("guest", .live)])
        let payload = WebhookPayload(change: .input(InputChange(id: "guest", state: .live, previousState: .waiting)),
                                     sequence: 12, timestamp: date, status: status)
        return try WebhookRequest(url: url, payload: payload, secret: secret)
    }

    @Test func bodyHasTheDocumentedShape() throws {
        let request = try Self.request(secret: nil)
        let object = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        #expect(Set(object.keys) == ["event", "taskId", "sequence", "timestamp", "input", "status"])
        #expect(object["event"] as? String == "input.state")
        #expect(object["taskId"] as? String == "room")
        #expect(object["sequence"] as? Int == 12)
        #expect(object["timestamp"] as? String == "2026-01-01T00:00:00.250Z")
        let input = try #require(object["input"] as? [String: Any])
        #expect(input["id"] as? String == "guest" && input["state"] as? String == "live"
                && input["previousState"] as? String == "waiting")
        let status = try #require(object["status"] as? [String: Any])
        #expect(status["state"] as? String == "running")
        #expect((status["inputs"] as? [[String: Any]])?.first?["state"] as? String == "live")
    }

    /// RFC 4231 test case 2, and one Python's `hmac` gives: the signature is standard HMAC-SHA256.
    @Test func theSignatureIsHMACSHA256() {
        #expect(WebhookRequest.hexSignature(key: Data("Jefe".utf8), body: Data("what do ya want for nothing?".utf8))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // python3 -c 'import hmac; print(hmac.new(b"a"*64, b"body", "sha256").hexdigest())'
        #expect(WebhookRequest.hexSignature(key: Data(repeating: 0x61, count: 64), body: Data("body".utf8))
                == "cbeec3a0761ed7c931e1afc6a0aa9863defc93372b60911aaaa523c426dde73c")
    }

    @Test func signsTheExactBodyWithTheSecret() throws {
        let request = try Self.request(secret: "s3cret")
        let expected = "sha256=" + WebhookRequest.hexSignature(key: Data("s3cret".utf8), body: request.body)
        let headers = request.headers(attempt: 1)
        #expect(headers["X-Tessera-Signature"] == expected)
        #expect(headers["X-Tessera-Event"] == "input.state")
        #expect(headers["X-Tessera-Timestamp"] == "2026-01-01T00:00:00.250Z")
        #expect(headers["Content-Type"] == "application/json")
        #expect(UUID(uuidString: headers["X-Tessera-Delivery"] ?? "") != nil)
        // A different secret gives a different signature.
        #expect(try Self.request(secret: "other").headers(attempt: 1)["X-Tessera-Signature"] != expected)
    }

    @Test func aRetryRepeatsTheDeliveryIdAndCountsTheAttempt() throws {
        let request = try Self.request(secret: "k")
        let first = request.headers(attempt: 1)
        let third = request.headers(attempt: 3)
        #expect(first["X-Tessera-Delivery"] == third["X-Tessera-Delivery"])
        #expect(first["X-Tessera-Signature"] == third["X-Tessera-Signature"])
        #expect(first["X-Tessera-Attempt"] == "1" && third["X-Tessera-Attempt"] == "3")
    }
}
