import Instrumentation
import NIOHTTP1

/// Writes what a tracer propagates (W3C's `traceparent` and `tracestate`, or whatever the
/// tracer's own format names) into a request's header fields, replacing a field of the same
/// name. The session checks every field before it is sent, so a value a tracer gets wrong is a
/// ``LupineError/invalidHeader(name:reason:)``, never a trap.
struct HTTPHeadersInjector: Injector {
    func inject(_ value: String, forKey key: String, into headers: inout HTTPHeaders) {
        headers.replaceOrAdd(name: key, value: value)
    }
}
