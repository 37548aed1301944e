@_exported import struct NIOCore.ByteBuffer
@_exported import struct NIOCore.TimeAmount
@_exported import struct NIOHTTP1.HTTPHeaders
@_exported import enum NIOHTTP1.HTTPMethod
@_exported import enum NIOHTTP1.HTTPResponseStatus
@_exported import struct NIOHTTP1.HTTPVersion
@_exported import LupineTransport
