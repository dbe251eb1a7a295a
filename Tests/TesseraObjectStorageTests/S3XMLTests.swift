import Testing
import TesseraObjectStorage

/// S3's answers as the API reference prints them.
@Suite struct S3XMLTests {
    @Test func readsTheUploadIdOfANewMultipartUpload() {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <InitiateMultipartUploadResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
              <Bucket>example-bucket</Bucket><Key>example-object</Key>
              <UploadId>VXBsb2FkIElEIGZvciA2aWWpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA</UploadId>
            </InitiateMultipartUploadResult>
            """
        #expect(S3XML.uploadId(xml) == "VXBsb2FkIElEIGZvciA2aWWpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA")
    }

    @Test func listsOpenUploadsAndTheirNextPage() {
        let xml = """
            <ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
              <Bucket>bucket</Bucket><KeyMarker></KeyMarker><UploadIdMarker></UploadIdMarker>
              <NextKeyMarker>my-movie.m2ts</NextKeyMarker><NextUploadIdMarker>YW55IGlkZWEgd2h5</NextUploadIdMarker>
              <MaxUploads>3</MaxUploads><IsTruncated>true</IsTruncated>
              <Upload><Key>my-divisor</Key><UploadId>XMgbGlrZSBlbHZpbmcncyBub3QgaGF2aW5nIG11Y2ggbHVjaw</UploadId>
                <Initiator><ID>arn:aws:iam::111122223333:user/user1-11111a31-17b5-4fb7-9df5-b111111f13de</ID></Initiator>
                <StorageClass>STANDARD</StorageClass><Initiated>2010-11-10T20:48:33.000Z</Initiated></Upload>
              <Upload><Key>my-movie.m2ts</Key><UploadId>VXBsb2FkIElEIGZvciBlbHZpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA</UploadId></Upload>
            </ListMultipartUploadsResult>
            """
        let page = S3XML.uploads(xml)
        #expect(page.items == [S3XML.Upload(key: "my-divisor", uploadId: "XMgbGlrZSBlbHZpbmcncyBub3QgaGF2aW5nIG11Y2ggbHVjaw"),
                               S3XML.Upload(key: "my-movie.m2ts", uploadId: "VXBsb2FkIElEIGZvciBlbHZpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA")])
        #expect(page.nextMarkers == ["key-marker": "my-movie.m2ts", "upload-id-marker": "YW55IGlkZWEgd2h5"])
    }

    @Test func listsPartsWithQuotedETags() {
        let xml = """
            <ListPartsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
              <Bucket>example-bucket</Bucket><Key>example-object</Key><UploadId>XXBsb2FkIElEIGZvciBlbHZpbmcncyVcdS1tb3ZpZS5tMnRzEEEwbG9hZA</UploadId>
              <PartNumberMarker>1</PartNumberMarker><NextPartNumberMarker>3</NextPartNumberMarker><MaxParts>2</MaxParts>
              <IsTruncated>false</IsTruncated>
              <Part><PartNumber>2</PartNumber><LastModified>2010-11-10T20:48:34.000Z</LastModified>
                <ETag>&quot;7778aef83f66abc1fa1e8477f296d394&quot;</ETag><Size>10485760</Size></Part>
              <Part><PartNumber>3</PartNumber><ETag>"aaaa18db4cc2f85cedef654fccc4a4x8"</ETag><Size>10485760</Size></Part>
            </ListPartsResult>
            """
        let page = S3XML.parts(xml)
        #expect(page.items == [S3XML.Part(number: 2, etag: "\"7778aef83f66abc1fa1e8477f296d394\"", size: 10_485_760),
                               S3XML.Part(number: 3, etag: "\"aaaa18db4cc2f85cedef654fccc4a4x8\"", size: 10_485_760)])
        #expect(page.nextMarkers == nil)
    }

    @Test func readsErrorsAndWritesTheCompletion() {
        let error = S3XML.error("<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message></Error>")
        #expect(error?.code == "NoSuchBucket")
        #expect(error?.message == "The specified bucket does not exist")
        #expect(S3XML.error("<CompleteMultipartUploadResult><ETag>x</ETag></CompleteMultipartUploadResult>") == nil)
        let body = S3XML.completion([S3XML.Part(number: 2, etag: "\"b\"", size: 1), S3XML.Part(number: 1, etag: "\"a\"", size: 1)])
        #expect(body.contains("<Part><PartNumber>1</PartNumber><ETag>&quot;a&quot;</ETag></Part><Part><PartNumber>2</PartNumber>"))
    }

    /// Found by the `s3_xml` fuzz target (fuzz/regressions/s3_xml/combining-mark-after-tag): text
    /// starting with a combining mark joined the tag's `>` into one Character and the element was lost.
    @Test func anElementWhoseTextStartsWithACombiningMarkIsRead() {
        let parts = [S3XML.Part(number: 1, etag: "\u{36F}\u{FFFD}\u{FFFD}", size: 0), S3XML.Part(number: 2, etag: "e\u{301}", size: 0)]
        #expect(S3XML.parts(S3XML.completion(parts)).items == parts)
        let page = S3XML.uploads("<ListMultipartUploadsResult><Upload><Key>\u{301}rec.mp4</Key><UploadId>u1</UploadId></Upload></ListMultipartUploadsResult>")
        #expect(page.items.count == 1)
    }
}
