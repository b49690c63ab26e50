"""safetensors with Python's standard library alone: read a file ltt wrote,
write outputs for `ltt verify` (shared by the Python tests)."""
import json
import struct


def read(path):
    """-> (tensors: name -> (dtype, shape, bytes), metadata: dict)."""
    raw = open(path, "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    data = raw[8 + n:]
    meta = header.pop("__metadata__", {})
    tensors = {k: (v["dtype"], v["shape"], data[v["data_offsets"][0]:v["data_offsets"][1]]) for k, v in header.items()}
    return tensors, meta


def serialise(tensors, metadata=None):
    """tensors: name -> (dtype, shape, bytes); compact JSON with sorted keys, data in name order."""
    head, blob = {}, b""
    for name in sorted(tensors):
        dtype, shape, b = tensors[name]
        head[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(blob), len(blob) + len(b)]}
        blob += b
    if metadata:
        head["__metadata__"] = metadata
    h = json.dumps(head, separators=(",", ":"), sort_keys=True).encode("utf-8")
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + blob


def write(path, tensors, metadata=None):
    open(path, "wb").write(serialise(tensors, metadata))
