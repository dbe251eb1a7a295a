import Foundation
import Testing
import TesseraObjectStorage

/// AWS's published vectors: the `aws-sig-v4-test-suite` (example keys, 2015-08-30 12:36:00 UTC,
/// us-east-1, service `service`) and the S3 documentation's `GET /test.txt` example.
@Suite struct SigV4SignerTests {
    static let suiteSigner = SigV4Signer(
        credentials: .init(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1", service: "service")
    static let suiteDate = Date(timeIntervalSince1970: 1_440_938_160)  // 20150830T123600Z

    @Test func amzDateIsUTCToTheSecond() {
        #expect(SigV4Signer.amzDate(Self.suiteDate) == "20150830T123600Z")
    }

    @Test func getVanilla() {
        let request = SigV4Signer.Request(method: "GET", path: "/", headers: [("Host", "example.amazonaws.com")],
                                          payloadHash: SigV4Signer.emptyPayloadHash)
        let headers = Self.suiteSigner.sign(request, at: Self.suiteDate)
        #expect(headers.last?.value == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
                + "SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
    }

    @Test func getVanillaQueryOrderKeyCase() {
        let request = SigV4Signer.Request(method: "GET", path: "/", query: [("Param2", "value2"), ("Param1", "value1")],
                                          headers: [("Host", "example.amazonaws.com")], payloadHash: SigV4Signer.emptyPayloadHash)
        let authorization = Self.suiteSigner.sign(request, at: Self.suiteDate).last?.value ?? ""
        #expect(authorization.hasSuffix("Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"))
    }

    @Test func postXWWWFormURLEncoded() {
        let body = Data("Param1=value1".utf8)
        let request = SigV4Signer.Request(
            method: "POST", path: "/",
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Host", "example.amazonaws.com")],
            payloadHash: SigV4Signer.payloadHash(body))
        #expect(Self.suiteSigner.sign(request, at: Self.suiteDate).last?.value
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
                + "SignedHeaders=content-type;host;x-amz-date, Signature=ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a")
    }

    /// The S3 documentation's header-signing example: `GET /test.txt` with a range, the
    /// empty-body hash in `x-amz-content-sha256`, 2013-05-24, the documentation's example keys.
    @Test func s3GetObjectExample() {
        let signer = SigV4Signer(
            credentials: .init(accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            region: "us-east-1", service: "s3")
        let request = SigV4Signer.Request(
            method: "GET", path: "/test.txt",
            headers: [("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9"),
                      ("x-amz-content-sha256", SigV4Signer.emptyPayloadHash)],
            payloadHash: SigV4Signer.emptyPayloadHash)
        let date = Date(timeIntervalSince1970: 1_369_353_600)  // 20130524T000000Z
        #expect(signer.sign(request, at: date).last?.value
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test func encodesEachPathSegmentOnce() {
        let request = SigV4Signer.Request(method: "PUT", path: "/bucket/rec/room 42+1.mp4", headers: [("host", "h")],
                                          payloadHash: "UNSIGNED-PAYLOAD")
        let (canonical, _) = SigV4Signer.canonicalRequest(request, headers: request.headers)
        #expect(canonical.split(separator: "\n", omittingEmptySubsequences: false)[1] == "/bucket/rec/room%2042%2B1.mp4")
    }
}
