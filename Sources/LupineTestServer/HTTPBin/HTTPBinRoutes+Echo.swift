import Hummingbird

extension HTTPBinRoutes {
    /// `/get`, `/post`, `/put`, `/patch`, `/delete`, `/anything(/...)`, `/headers`, `/ip`,
    /// `/user-agent`: the request described back as JSON.
    func registerEcho(on router: Router<Context>) {
        router.get("/get") { request, context in
            try await echoResponse(RequestEcho.Field.get, request, context)
        }
        let bodyMethods: [(RouterPath, HTTPRequest.Method)] = [
            ("/post", .post), ("/put", .put), ("/patch", .patch), ("/delete", .delete),
        ]
        for (path, method) in bodyMethods {
            router.on(path, method: method) { request, context in
                try await echoResponse(RequestEcho.Field.body, request, context)
            }
        }
        for path: RouterPath in ["/anything", "/anything/**"] {
            on(path, methods: Self.anyMethod, router: router) { request, context in
                try await echoResponse(RequestEcho.Field.anything, request, context)
            }
        }
        router.get("/headers") { request, context in
            try Response.json(.object(["headers": echo(request, context).headers]))
        }
        router.get("/ip") { request, context in
            try Response.json(.object(["origin": echo(request, context).origin]))
        }
        router.get("/user-agent") { request, _ in
            try Response.json(.object(["user-agent": request.headers[.userAgent].map(JSONValue.string) ?? .null]))
        }
    }
}
