import Foundation
import Testing
import TesseraTask
import TesseraObjectStorage
import TesseraService

/// Which buckets a POST or PATCH asks the store about, and which answers refuse the task.
@Suite struct BucketCheckTests {
    static func plan(_ outputs: [String]) throws -> ResolvedTask {
        let list = outputs.map { #"{"url": "\#($0)"}"# }.joined(separator: ", ")
        let document = #"{"taskId": "t", "inputs": [{"id": "a", "url": "rtmp://origin.example/live/a"}], "encoder": {"video": {"width": 320, "height": 180}}, "layout": {"regions": [{"input": "a", "x": 0, "y": 0, "width": 320, "height": 180}]}, "outputs": [\#(list)]}"#
        var options = ValidationOptions(mediaRoot: "/srv", resolveHost: { _ in [[93, 184, 216, 34]] })
        options.objectStorage = true
        return try TaskValidator.validate(json: Data(document.utf8), options: options).get()
    }

    @Test func eachBucketOnceByItsFirstOutputSkippingTheOnesInUse() throws {
        let plan = try Self.plan(["rec.mp4", "s3://shows/a.mp4", "rtmp://cdn.example/live/k", "s3://shows/b.ts", "s3://vod/c.m3u8"])
        #expect(BucketCheck.buckets(of: plan).map { "\($0.index):\($0.bucket)" } == ["1:shows", "4:vod"])
        // A PATCH asks only about buckets the task did not use.
        #expect(BucketCheck.buckets(of: plan, skipping: ["shows"]).map { "\($0.index):\($0.bucket)" } == ["4:vod"])
    }

    @Test func aMissingBucketOrRefusedCredentialsRefuseAndAnUnansweringStoreDoesNot() {
        let refusing = [S3Failure(status: 404, code: "NoSuchBucket", message: "The specified bucket does not exist"),
                        S3Failure(status: 403, code: "SignatureDoesNotMatch", message: ""),
                        S3Failure(status: 403, code: "InvalidAccessKeyId", message: ""),
                        S3Failure(status: 403, code: "AccessDenied", message: "")]
        for failure in refusing {
            let message = BucketCheck.refusal(failure, bucket: "shows")
            #expect(message?.contains("bucket \"shows\"") == true && message?.contains(failure.code ?? "?") == true, "\(failure)")
        }
        let passing = [S3Failure(status: nil, code: nil, message: "cannot reach the store: connection refused"),
                       S3Failure(status: 503, code: "SlowDown", message: ""), S3Failure(status: 500, code: nil, message: "")]
        for failure in passing { #expect(BucketCheck.refusal(failure, bucket: "shows") == nil, "\(failure)") }
    }
}
