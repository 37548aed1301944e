import Foundation
import Hummingbird

extension HTTPBinRoutes {
    /// `/cache`, `/cache/:n` and `/etag/:etag`.
    func registerCaching(on router: Router<Context>) {
        let lastModified = HTTPDate.string(from: Date())
        router.get("/cache") { request, context in
            if request.headers[.ifModifiedSince] != nil || request.headers[.ifNoneMatch] != nil {
                return Response(status: .notModified)
            }
            return try await echoResponse(
                RequestEcho.Field.get,
                request,
                context,
                headers: [.lastModified: lastModified, .eTag: "\"lupine-cache\""]
            )
        }
        router.get("/cache/:n") { request, context in
            let maxAge = try Self.integer("n", in: context)
            return try await echoResponse(
                RequestEcho.Field.get,
                request,
                context,
                headers: [.cacheControl: "public, max-age=\(maxAge)"]
            )
        }
        router.get("/etag/:etag") { request, context in
            let tag = try context.parameters.require("etag")
            let quoted = "\"\(tag)\""
            if let ifNoneMatch = EntityTagList(request.headers[.ifNoneMatch]) {
                if ifNoneMatch.matches(tag) {
                    return Response(status: .notModified, headers: [.eTag: quoted])
                }
            } else if let ifMatch = EntityTagList(request.headers[.ifMatch]), !ifMatch.matches(tag) {
                return Response(status: .preconditionFailed)
            }
            return try await echoResponse(RequestEcho.Field.get, request, context, headers: [.eTag: quoted])
        }
    }
}
