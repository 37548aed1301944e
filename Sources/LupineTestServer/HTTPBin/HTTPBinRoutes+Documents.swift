import Hummingbird

extension HTTPBinRoutes {
    /// `/json`, `/xml` and `/plist`; the images are in `HTTPBinRoutes+Images.swift`.
    func registerDocuments(on router: Router<Context>) {
        router.get("/json") { _, _ in
            try Response.json(SlideshowDocuments.json)
        }
        router.get("/xml") { _, _ in
            Response.bytes(Array(SlideshowDocuments.xml.utf8), contentType: "application/xml")
        }
        router.get("/plist") { _, _ in
            Response.bytes(Array(SlideshowDocuments.propertyList.utf8), contentType: "application/x-plist")
        }
    }
}
