"""Client for the decider joint-decision service (gRPC). No torch."""

from decider_client.client import AsyncDeciderClient, DeciderClient, DeciderError, Decision, build_request
from decider_client.schema import (at_least_one, at_most_one, different, equal, exactly_one, excludes, implies,
                                   questions_of)
from decider_client.v1 import decider_pb2 as pb

__all__ = ["AsyncDeciderClient", "DeciderClient", "DeciderError", "Decision", "build_request", "pb",
           "questions_of", "implies", "excludes", "equal", "different", "at_most_one", "at_least_one",
           "exactly_one"]
