import Foundation

extension Notification.Name {
    /// Posted when a task resumes; the object is the ``SessionTask``.
    public static let lupineTaskDidResume = Notification.Name("com.lupine.networking.task.resume")
    /// Posted when a task is suspended; the object is the ``SessionTask``.
    public static let lupineTaskDidSuspend = Notification.Name("com.lupine.networking.task.suspend")
    /// Posted once when a task completes; the object is the ``SessionTask`` and the user info
    /// carries the keys of ``LupineNotificationKey``.
    public static let lupineTaskDidComplete = Notification.Name("com.lupine.networking.task.complete")
    /// Posted when a session manager is invalidated; the object is the ``SessionManager``.
    public static let lupineSessionDidInvalidate = Notification.Name("com.lupine.networking.session.invalidate")
}

/// The user-info keys of `Notification.Name.lupineTaskDidComplete`, as AFNetworking's
/// `AFNetworkingTaskDidComplete…Key` constants.
public enum LupineNotificationKey {
    /// The response body, `[UInt8]`.
    public static let responseData = "com.lupine.networking.task.complete.responsedata"
    /// The serialized value, when serialization produced one.
    public static let serializedResponse = "com.lupine.networking.task.complete.serializedresponse"
    /// The response serializer that ran, `any ResponseSerializer`.
    public static let responseSerializer = "com.lupine.networking.task.complete.responseserializer"
    /// The error, ``LupineError``, when the task failed.
    public static let error = "com.lupine.networking.task.complete.error"
    /// A download task's file, `URL`.
    public static let fileURL = "com.lupine.networking.task.complete.fileurl"
    /// The transport metrics, `TransportMetrics`.
    public static let metrics = "com.lupine.networking.task.complete.sessiontaskmetrics"
}
