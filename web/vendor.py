"""The board widget, chessground (the board Lichess uses), fetched from the npm registry at ``make
web`` or the first start, checked against its pinned sha512, into ``web/static/vendor/`` of a clone
(git-ignored: the widget is installed, never copied into the repository), or the user's data folder
of an installed engine (``web-vendor/``: site-packages may be read-only, and pip would leave it
behind); the app serves it as ``/static/vendor/``. No node needed."""

from __future__ import annotations

import base64
import hashlib
import io
import sys
import tarfile
import urllib.request
from pathlib import Path

from common.paths import data_folder, in_source_tree

PACKAGE = "chessground"
VERSION = "9.2.1"
TARBALL = f"https://registry.npmjs.org/{PACKAGE}/-/{PACKAGE}-{VERSION}.tgz"
#: The registry's ``dist.integrity`` of that version: a different tarball is refused.
INTEGRITY = (
    "sha512-KIdxm0zD69e62XRwdnFB0XUNYSzn5HM3pMazRCwpfruRUowFI8y+1OAK5YSyBff29myeV1/4o5Q8T"
    "191+Irbog=="
)
VENDOR = (
    Path(__file__).resolve().parent / "static" / "vendor"
    if in_source_tree()
    else data_folder() / "web-vendor"
)
TARGET = VENDOR / PACKAGE
#: What the page loads: the ES modules of dist/ and the stylesheets (pieces are data URIs in them).
WANTED = ("package/dist/", "package/assets/", "package/LICENSE", "package/package.json")
#: The tarball is about 300 kB; anything far larger is not it.
MAX_BYTES = 10_000_000


class VendorError(RuntimeError):
    """The widget could not be fetched or did not match its pin."""


def installed() -> bool:
    """Whether the pinned widget is in place."""
    return (TARGET / "VERSION").is_file() and (TARGET / "VERSION").read_text().strip() == VERSION


def check_integrity(data: bytes, integrity: str = INTEGRITY) -> None:
    """Raise unless ``data`` hashes to the ``sha512-...`` integrity string."""
    algorithm, _, expected = integrity.partition("-")
    if algorithm != "sha512":
        raise VendorError(f"unsupported integrity {algorithm!r}")
    actual = base64.b64encode(hashlib.sha512(data).digest()).decode()
    if actual != expected:
        raise VendorError(f"{TARBALL}: sha512 {actual} is not the pinned {expected}")


def unpack(data: bytes, target: Path = TARGET) -> None:
    """The wanted files of the npm tarball into ``target`` (their ``package/`` prefix dropped)."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            name = member.name
            if not member.isfile() or not name.startswith(WANTED) or name.endswith((".map", ".ts")):
                continue
            relative = Path(name).relative_to("package")
            if ".." in relative.parts:  # a tarball naming files outside its folder is refused
                raise VendorError(f"{TARBALL}: member {name!r} leaves the package")
            extracted = tar.extractfile(member)
            assert extracted is not None
            out = target / relative
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(extracted.read())
    (target / "VERSION").write_text(VERSION + "\n")


def fetch(*, quiet: bool = False) -> Path:
    """Download, check and unpack the pinned chessground unless it is there; its folder."""
    if installed():
        return TARGET
    if not quiet:
        print(f"fetching {PACKAGE} {VERSION} from the npm registry ...", file=sys.stderr)
    try:
        with urllib.request.urlopen(TARBALL, timeout=60) as response:
            data = response.read(MAX_BYTES + 1)
    except OSError as exc:
        raise VendorError(f"could not download {TARBALL}: {exc}") from exc
    if len(data) > MAX_BYTES:
        raise VendorError(f"{TARBALL}: more than {MAX_BYTES} bytes")
    check_integrity(data)
    unpack(data)
    return TARGET


def main() -> int:
    """``python -m web.vendor``: fetch the widget (``make web`` runs it)."""
    try:
        print(fetch())
    except VendorError as exc:
        print(f"web.vendor: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
