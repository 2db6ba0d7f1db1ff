"""Files out of Debian packages (retto.models.debian), on a .deb built here by hand: an ar archive (the format's
60-byte member headers, written from its specification) holding debian-binary, control.tar.xz and data.tar.xz;
served from a file:// "archive" so no network is needed."""
import hashlib
import io
import tarfile

import pytest

from retto.errors import RettoError
from retto.models import debian

TRAINEDDATA = b"not really a model, but bytes to find again" * 10


def tar_xz(files: dict) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:xz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def ar(members: list) -> bytes:
    out = [b"!<arch>\n"]
    for name, data in members:
        header = f"{name:<16}{0:<12}{0:<6}{0:<6}{'100644':<8}{len(data):<10}`\n".encode("ascii")
        assert len(header) == 60
        out += [header, data, b"\n" if len(data) % 2 else b""]
    return b"".join(out)


@pytest.fixture
def deb() -> bytes:
    data = tar_xz({"./usr/share/doc/x/copyright": b"Apache-2.0\n",
                   "./usr/share/tesseract-ocr/5/tessdata/xyz.traineddata": TRAINEDDATA})
    return ar([("debian-binary", b"2.0\n"), ("control.tar.xz", tar_xz({"./control": b"Package: x\n"})),
               ("data.tar.xz", data)])


def test_a_member_is_read_out_of_the_data_archive(deb):
    assert debian.member(deb, "usr/share/tesseract-ocr/5/tessdata/xyz.traineddata") == TRAINEDDATA
    with pytest.raises(RettoError) as err:
        debian.member(deb, "usr/share/tesseract-ocr/5/tessdata/abc.traineddata")
    assert err.value.code == "model_missing"
    with pytest.raises(RettoError) as err:
        debian.member(b"PK\x03\x04 a zip, not a deb", "x")
    assert err.value.code == "model_integrity"


def test_the_package_is_downloaded_from_the_pool_and_checked(deb, tmp_path, monkeypatch):
    pool = tmp_path / "archive" / "pool" / "main" / "x"
    pool.mkdir(parents=True)
    (pool / "x_1.0_all.deb").write_bytes(deb)
    monkeypatch.setenv("RETTO_DEBIAN_MIRROR", (tmp_path / "archive").as_uri())
    source = {"package": "x", "version": "1.0", "file": "x_1.0_all.deb", "pool": "pool/main/x/",
              "sha256": hashlib.sha256(deb).hexdigest()}
    got = debian.download(source, tmp_path / "downloads")
    assert got.read_bytes() == deb
    (pool / "x_1.0_all.deb").unlink()
    assert debian.download(source, tmp_path / "downloads") == got   # kept and verified: not fetched again
    (pool / "x_1.0_all.deb").write_bytes(deb + b"tampered")
    with pytest.raises(RettoError) as err:
        debian.download({**source, "file": "x_1.0_all.deb"}, tmp_path / "other")
    assert err.value.code == "model_integrity" and not (tmp_path / "other" / "x_1.0_all.deb").exists()
