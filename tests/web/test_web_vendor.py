"""The board widget's fetch (web/vendor.py), offline: the pin refuses another tarball, and only
the package's own files are unpacked."""

from __future__ import annotations

import base64
import hashlib
import io
import tarfile

import pytest

from web.vendor import VendorError, check_integrity, unpack


def _tarball(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def test_the_integrity_pin_accepts_its_tarball_only():
    data = b"the tarball"
    pin = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
    check_integrity(data, pin)
    with pytest.raises(VendorError, match="not the pinned"):
        check_integrity(data + b"!", pin)
    with pytest.raises(VendorError, match="unsupported"):
        check_integrity(data, "sha1-abc")


def test_unpack_keeps_the_widgets_files_and_refuses_to_leave_its_folder(tmp_path):
    data = _tarball(
        {
            "package/dist/chessground.js": b"export {}",
            "package/assets/chessground.base.css": b"cg {}",
            "package/src/api.ts": b"ts",
            "package/dist/api.js.map": b"{}",
            "other/x.js": b"no",
        }
    )
    unpack(data, tmp_path / "cg")
    files = sorted(
        str(p.relative_to(tmp_path / "cg")) for p in (tmp_path / "cg").rglob("*") if p.is_file()
    )
    assert files == ["VERSION", "assets/chessground.base.css", "dist/chessground.js"]
    with pytest.raises(VendorError, match="leaves the package"):
        unpack(_tarball({"package/dist/../../../evil.js": b"x"}), tmp_path / "bad")
    assert not (tmp_path / "evil.js").exists()
