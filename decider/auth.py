"""Bearer-token authentication as a server interceptor.

Every RPC except health checks and reflection must carry `authorization: Bearer <token>`
with a token from the configured set; others get UNAUTHENTICATED before any handler runs.
"""

from __future__ import annotations

import hmac

import grpc

OPEN_SERVICES = ("/grpc.health.v1.Health/", "/grpc.reflection.")


class TokenAuth(grpc.aio.ServerInterceptor):
    def __init__(self, tokens: set[str]):
        self.tokens = [t.encode() for t in tokens]

    def _allowed(self, metadata) -> bool:
        for key, value in metadata or ():
            if key == "authorization" and value.startswith("Bearer "):
                given = value[len("Bearer "):].encode()
                return any(hmac.compare_digest(given, t) for t in self.tokens)
        return False

    async def intercept_service(self, continuation, details):
        if details.method.startswith(OPEN_SERVICES) or self._allowed(details.invocation_metadata):
            return await continuation(details)
        handler = await continuation(details)
        return _deny(handler)


def _deny(handler):
    async def unary(request, context):
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing or unknown bearer token "
                            "(send 'authorization: Bearer <token>')")

    async def streaming(request_iterator, context):
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing or unknown bearer token "
                            "(send 'authorization: Bearer <token>')")
        yield  # pragma: no cover

    if handler is None:
        return None
    if handler.request_streaming and handler.response_streaming:
        return grpc.stream_stream_rpc_method_handler(streaming, handler.request_deserializer,
                                                     handler.response_serializer)
    if handler.request_streaming:
        return grpc.stream_unary_rpc_method_handler(unary, handler.request_deserializer, handler.response_serializer)
    if handler.response_streaming:
        return grpc.unary_stream_rpc_method_handler(streaming, handler.request_deserializer,
                                                    handler.response_serializer)
    return grpc.unary_unary_rpc_method_handler(unary, handler.request_deserializer, handler.response_serializer)
