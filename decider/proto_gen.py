"""Generate the Python stubs of proto/decider/v1/decider.proto into the client package.

    python -m decider.proto_gen            # = make proto; writes clients/python/decider_client/v1/
The .proto is mapped to the import path decider_client/v1/ so that the generated modules
import each other as `decider_client.v1.*` and never collide with this `decider` package.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROTO = ROOT / "proto" / "decider" / "v1"
CLIENT = ROOT / "clients" / "python"
GENERATED = ("decider_pb2.py", "decider_pb2.pyi", "decider_pb2_grpc.py")


def generate(out: Path) -> list[Path]:
    import google.rpc
    import grpc_tools
    from grpc_tools import protoc

    googleapis = Path(google.rpc.__path__[0]).parents[1]        # google/rpc/status.proto
    well_known = Path(grpc_tools.__file__).parent / "_proto"    # google/protobuf/*.proto
    out.mkdir(parents=True, exist_ok=True)
    args = ["protoc", f"-Idecider_client/v1={PROTO}", f"-I{googleapis}", f"-I{well_known}",
            f"--python_out={out}", f"--pyi_out={out}", f"--grpc_python_out={out}", "decider_client/v1/decider.proto"]
    if protoc.main(args) != 0:
        raise RuntimeError(f"protoc failed: {' '.join(args)}")
    return [out / "decider_client" / "v1" / name for name in GENERATED]


def main() -> int:
    for path in generate(CLIENT):
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
