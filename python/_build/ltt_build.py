"""A PEP 517 build backend with the standard library alone: the ltt package
is pure Python, so its wheel is a zip of ltt/ and a dist-info folder."""
import base64
import hashlib
import os
import zipfile

NAME, VERSION = "ltt", "0.1.0"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIST_INFO = f"{NAME}-{VERSION}.dist-info"
METADATA = (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n"
            "Summary: Python access to ltt, the latent-MoE tail testbed\nRequires-Python: >=3.9\nRequires-Dist: numpy\n")
WHEEL = "Wheel-Version: 1.0\nGenerator: ltt_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _files():
    for root, _, names in os.walk(os.path.join(HERE, NAME)):
        for n in sorted(names):
            if n.endswith(".py"):
                full = os.path.join(root, n)
                yield full, os.path.relpath(full, HERE).replace(os.sep, "/")


def _hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    d = os.path.join(metadata_directory, DIST_INFO)
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "METADATA"), "w").write(METADATA)
    open(os.path.join(d, "WHEEL"), "w").write(WHEEL)
    return DIST_INFO


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = f"{NAME}-{VERSION}-py3-none-any.whl"
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for full, arc in _files():
            data = open(full, "rb").read()
            z.writestr(arc, data)
            record.append(f"{arc},{_hash(data)},{len(data)}")
        for fname, text in (("METADATA", METADATA), ("WHEEL", WHEEL)):
            data = text.encode()
            z.writestr(f"{DIST_INFO}/{fname}", data)
            record.append(f"{DIST_INFO}/{fname},{_hash(data)},{len(data)}")
        record.append(f"{DIST_INFO}/RECORD,,")
        z.writestr(f"{DIST_INFO}/RECORD", "\n".join(record) + "\n")
    return name
