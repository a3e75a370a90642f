"""More hands: handwriting families from the npm registry's `@fontsource/*` packages.

Each candidate below is fetched with `npm pack @fontsource/<id>` (the only registry access;
nothing at run time) into `training/data/npm/`, and kept when its `metadata.json` says
category `handwriting` (or it is one of the Cyrillic-capable hands in `EXTRA_HANDS`). Its
regular (400, else the lightest) upright Latin subset file and, where it has one, its
Cyrillic subset file go to `training/data/fonts/` (WOFF; Pillow reads them). A glyph is
drawn from the Cyrillic file when it is Cyrillic, else from the Latin one.

The list of what was kept, with package version, licence and attribution, is
`training/fonts_extra.tsv` (committed; the font files are not). A deterministic eighth of
the families, and at least three cursive and three Cyrillic ones, are `select`: they never
train, and the selection sets are drawn with them (`render.py`). The families reserved for
independent evaluation are not in the candidate list; the project's own held-out fonts are
refused by name.

    python -m training.fonts [--jobs 8]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import tarfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .common import ROOT, WORK

LICENCES = {"OFL-1.1", "Apache-2.0", "Ubuntu Font License 1.0"}
NPM = WORK / "npm"
OUT = WORK / "fonts"
LIST = ROOT / "training" / "fonts_extra.tsv"

# Our own held-out fonts. The families reserved for independent evaluation (see the
# project's developer guide) are not named here at all: they are simply not candidates.
HELD_OUT = {"kalam", "sue-ellen-francisco", "neucha", "zen-kurenaido"}
# Hands with no lower case (small caps, unicase, all-caps markers): a `b` drawn as `B`
# would teach the reader that case does not matter, and in chess it does (bxc4, Bxc4).
CAPITALS_ONLY = {"amatic-sc", "patrick-hand-sc", "permanent-marker", "delius-unicase", "rock-salt",
                 "just-another-hand", "cherry-cream-soda", "sedgwick-ave-display", "delius-swash-caps",
                 "bilbo-swash-caps", "londrina-solid", "fuggles", "butterfly-kids", "rancho", "walter-turncoat"}

# Cyrillic-capable hands Google files under another category.
EXTRA_HANDS = {"kurale", "gabriela", "underdog", "stick", "klee-one", "pattaya", "balsamiq-sans",
               "shantell-sans", "pangolin", "comic-relief", "yomogi", "lobster"}

CANDIDATES = """
caveat caveat-brush dancing-script pacifico shadows-into-light shadows-into-light-two indie-flower
amatic-sc amatic satisfy great-vibes kaushan-script sacramento patrick-hand patrick-hand-sc
permanent-marker courgette cookie gloria-hallelujah allura parisienne yellowtail handlee
architects-daughter rock-salt nothing-you-could-do reenie-beanie covered-by-your-grace
just-another-hand mr-dafoe alex-brush pinyon-script tangerine italianno herr-von-muellerhoff
mrs-saint-delafield monsieur-la-doulaise rochester arizonia damion norican niconne
petit-formal-script qwigley ruthie meddon over-the-rainbow waiting-for-the-sunrise zeyada
dawning-of-a-new-day la-belle-aurore schoolbell short-stack coming-soon crafty-girls delius
delius-swash-caps delius-unicase gochi-hand itim mali sriracha charm charmonman kristi
loved-by-the-king give-you-glory the-girl-next-door annie-use-your-telescope
swanky-and-moo-moo sedgwick-ave sedgwick-ave-display nanum-pen-script nanum-brush-script gaegu
hi-melody gamja-flower cute-font poor-story single-day east-sea-dokdo yeon-sung dokdo
kirang-haerang klee-one yomogi hachi-maru-pop yusei-magic comic-neue just-me-again-down-here
walter-turncoat dekko kavivanar sofadi-one vibur pangolin kurale gabriela underdog stick
oregano bilbo bilbo-swash-caps calligraffitti condiment dynalight engagement euphoria-script
felipa fondamento grand-hotel hurricane ingrid-darling inspiration island-moments kolker-brush
lovers-quarrel love-light moon-dance ms-madi my-soul ole puppies-play qwitcher-grypen
send-flowers splash square-peg the-nautigal twinkle-star updock vujahday-script water-brush
whisper windsong yesteryear birthstone birthstone-bounce beau-rivage babylonica
are-you-serious allison grey-qo gwendolyn corinthia estonia explora fleur-de-leah festive
ephesis caramel carattere bonheur-royale sassy-frass style-script luxurious-script mea-culpa
meow-script neonderthaw oooh-baby passions-conflict praise ruge-boogie lavishly-yours kings
imperial-script grechen-fuemen nerko-one borel playpen-sans shantell-sans balsamiq-sans
pattaya lobster lobster-two merienda merienda-one mynerve sue-ellen-francisco kalam neucha
cherry-cream-soda butterfly-kids fuggles love-ya-like-a-sister rancho sunshiney
princess-sofia miss-fajardose mr-bedfort mr-de-haviland mrs-sheppards montez
league-script jim-nightshade lakki-reddy mansalva nanum-gothic-coding nova-script
redressed shalimar sevillana seaweed-script stalemate tillana vibes whisper zhi-mang-xing
liu-jian-mao-cao long-cang ma-shan-zheng gochi-hand kristi
handjet pompiere gveret-levin solitreo playfair
caveat zeyada edu-au-vic-wa-nt-hand edu-au-vic-wa-nt-pre edu-nsw-act-foundation
edu-nsw-act-cursive edu-nsw-act-hand-pre edu-qld-beginner edu-qld-hand edu-sa-beginner
edu-sa-hand edu-tas-beginner edu-vic-wa-nt-beginner edu-vic-wa-nt-hand edu-vic-wa-nt-hand-pre
playwrite-ar playwrite-at playwrite-au-nsw playwrite-au-qld playwrite-au-sa playwrite-au-tas
playwrite-au-vic playwrite-be-vlg playwrite-be-wal playwrite-br playwrite-ca playwrite-cl
playwrite-co playwrite-cu playwrite-cz playwrite-de-grund playwrite-de-la playwrite-de-sas
playwrite-de-va playwrite-dk-loopet playwrite-dk-uloopet playwrite-es playwrite-es-deco
playwrite-fr-moderne playwrite-fr-trad playwrite-gb-j playwrite-gb-s playwrite-hr
playwrite-hr-lijeva playwrite-hu playwrite-id playwrite-ie playwrite-in playwrite-is
playwrite-it-moderna playwrite-it-trad playwrite-mx playwrite-ng-modern playwrite-nl
playwrite-no playwrite-nz playwrite-pe playwrite-pl playwrite-pt playwrite-ro playwrite-sk
playwrite-tz playwrite-us-modern playwrite-us-trad playwrite-vn playwrite-za
dongle
aguafina-script amita beth-ellen bonbon cherish chilanka clicker-script delicious-handrawn devonshire
dr-sugiyama eagle-lake fasthand freehand fuzzy-bubbles grape-nuts henny-penny julee licorice
meie-script miniver montecarlo mountains-of-christmas playball rouge-script smooch sofia srisakdi
tapestry gluten kalnia edu-au-vic-wa-nt-arrows sour-gummy lxgw-wenkai happy-monkey
""".split()


def fetch(fid: str) -> Path | None:
    """The package tarball of `@fontsource/<fid>` (cached), or None if npm has none."""
    NPM.mkdir(parents=True, exist_ok=True)
    have = sorted(NPM.glob(f"fontsource-{fid}-[0-9]*.tgz"))
    if have:
        return have[-1]
    r = subprocess.run(["npm", "pack", f"@fontsource/{fid}", "--silent"], cwd=NPM, capture_output=True, text=True)
    if r.returncode != 0:
        return None
    name = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
    return NPM / name if name and (NPM / name).exists() else None


def _pick(names: list[str], fid: str, subset: str) -> str | None:
    """The regular upright file of one subset: weight 400, else the lightest."""
    pre = f"package/files/{fid}-{subset}-"
    cands = []
    for n in names:
        if n.startswith(pre) and n.endswith("-normal.woff"):
            w = n[len(pre):].split("-")[0]
            if w.isdigit():
                cands.append((abs(int(w) - 400) if int(w) >= 400 else 1000 + 400 - int(w), n))
    return min(cands)[1] if cands else None


def _member(t: tarfile.TarFile, name: str) -> bytes:
    """The bytes of the regular file `name` in the archive."""
    f = t.extractfile(name)
    if f is None:
        raise ValueError(f"{name} is not a regular file")
    return f.read()


def extract(fid: str, tgz: Path) -> dict | None:
    with tarfile.open(tgz) as t:
        meta = json.loads(_member(t, "package/metadata.json"))
        version = json.loads(_member(t, "package/package.json"))["version"]
        if meta.get("category") != "handwriting" and fid not in EXTRA_HANDS:
            return None
        if "normal" not in meta.get("styles", []):
            return None
        names = t.getnames()
        latin = _pick(names, fid, "latin")
        if latin is None:
            return None
        cyr = _pick(names, fid, "cyrillic") if "cyrillic" in meta.get("subsets", []) else None
        OUT.mkdir(parents=True, exist_ok=True)
        files = {}
        for key, member in (("latin", latin), ("cyrillic", cyr)):
            if member:
                dst = OUT / Path(member).name
                if not dst.exists():
                    dst.write_bytes(_member(t, member))
                files[key] = dst.name
    lic = meta.get("license", {})
    if isinstance(lic, str):
        lic = {"type": lic}
    if lic.get("type") not in LICENCES:
        return None  # a licence we cannot name is not used
    return {"id": fid, "family": meta.get("family", fid), "category": meta.get("category", ""),
            "latin": files["latin"], "cyrillic": files.get("cyrillic", ""),
            "package": f"@fontsource/{fid} {version}", "license": lic.get("type", "?"),
            "attribution": lic.get("attribution", "").replace("\t", " ").replace("\n", " ")}


def cursive(row: dict) -> bool:
    return row["id"].startswith(("playwrite-", "edu-")) or row["id"] in {
        "great-vibes", "dancing-script", "allura", "parisienne", "pinyon-script", "alex-brush", "italianno",
        "tangerine", "rochester", "arizonia", "yellowtail", "sacramento", "satisfy", "courgette", "cookie",
        "pacifico", "pattaya", "lobster", "kaushan-script", "damion", "norican", "niconne", "grand-hotel"}


def assign_roles(rows: list[dict], kept: dict[str, str] | None = None) -> None:
    """`select` for a deterministic eighth (by a hash of the id), topped up to three cursive
    and three Cyrillic families; `train` for the rest. A family already listed keeps its
    role (`kept`), so adding candidates never moves a selection hand into training."""
    def h(r):
        return hashlib.sha256(r["id"].encode()).hexdigest()
    kept = kept or {}
    for r in rows:
        r["role"] = kept.get(r["id"]) or ("select" if int(h(r)[:8], 16) % 8 == 0 else "train")
    for want in (cursive, lambda r: bool(r["cyrillic"])):
        pool = sorted((r for r in rows if want(r)), key=h)
        chosen = [r for r in pool if r["role"] == "select"]
        for r in pool:
            if len(chosen) >= 3:
                break
            if r["role"] != "select" and r["id"] not in kept:
                r["role"] = "select"
                chosen.append(r)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=8)
    build(ap.parse_args().jobs)


def build(jobs: int = 8) -> None:
    ids = []
    for fid in CANDIDATES:
        if fid in HELD_OUT or fid in CAPITALS_ONLY or fid in ids:
            continue
        ids.append(fid)
    with ThreadPoolExecutor(jobs) as ex:
        tgzs = list(ex.map(fetch, ids))
    rows = []
    for fid, tgz in zip(ids, tgzs):
        if tgz is None:
            print(f"fonts: no package @fontsource/{fid}")
            continue
        r = extract(fid, tgz)
        if r is not None:
            rows.append(r)
    assign_roles(rows, {r["id"]: r["role"] for r in listed()})
    cols = ["id", "family", "role", "category", "latin", "cyrillic", "package", "license", "attribution"]
    LIST.write_text("\t".join(cols) + "\n" + "".join("\t".join(r[c] for c in cols) + "\n" for r in rows),
                    encoding="utf-8")
    n_cyr = sum(1 for r in rows if r["cyrillic"])
    n_sel = sum(1 for r in rows if r["role"] == "select")
    print(f"fonts: {len(rows)} families ({n_cyr} with Cyrillic, {n_sel} for selection) -> {LIST}")


def listed() -> list[dict]:
    """The rows of `fonts_extra.tsv` (none before the first `build`)."""
    if not LIST.exists():
        return []
    lines = LIST.read_text(encoding="utf-8").splitlines()
    head = lines[0].split("\t")
    return [dict(zip(head, line.split("\t"))) for line in lines[1:]]


def extra_fonts(role: str) -> list[dict]:
    """Rows of `fonts_extra.tsv` with the given role whose files are present."""
    return [r for r in listed() if r["role"] == role and (OUT / r["latin"]).exists()]


if __name__ == "__main__":
    main()
