"""What players write in a form's header: event names, rounds, boards, dates, names and
results, each as written (the raw text the hand draws) and as a PGN tag value.

The names and events are made up here (surnames and given names of the form's language,
combined at random; German and Polish with their diacritics, Russian in Cyrillic): no
player list or data set is used. `forms.py` draws them into the header fields of its
newer families; `fields_eval.py` scores a reader against them.
"""
from __future__ import annotations

import random
import re
import unicodedata

# Surnames and given names by language; (masculine, feminine) surname forms where the
# language inflects them.
SURNAMES: dict[str, list[str]] = {
    "de": ["Müller", "Schröder", "Weiß", "Bäcker", "Groß", "Köhler", "Jäger", "Hübner", "Krämer", "Fuß",
           "Brückner", "Vogt", "Lämmle", "Sauerbier", "Zöllner", "Haßler", "Ostermann", "Würz", "Kühn",
           "Großkopf", "Pfänder", "Dörr", "Eichhorn", "Blümel"],
    "pl": ["Wójcik", "Zając", "Kędzierski", "Dąbrowski", "Kaźmierczak", "Grzegorczyk", "Ślusarz", "Pięta",
           "Łęcki", "Nowicki", "Sójka", "Żurawski", "Bieńkowski", "Gołąb", "Michałowski", "Szczęsny",
           "Cieślak", "Jóźwiak", "Wróbel", "Kołodziej", "Łukasik", "Przybył", "Maćkowiak", "Świątek"],
    "en": ["Harper", "O'Neill", "Fitzgerald", "Okafor", "Lindqvist", "Moreau", "Whitfield", "Gallagher",
           "Brennan", "Ashworth", "Kowalczyk", "Delgado", "Nakamura", "Pritchard", "Summers", "Vance",
           "Holloway", "Achebe", "Templeton", "Rowe"],
    "ru": ["Иванов", "Кузнецов", "Смирнов", "Фёдоров", "Жуков", "Щербаков", "Соловьёв", "Григорьев",
           "Чернышёв", "Яковлев", "Зайцев", "Белов", "Воронцов", "Ершов", "Пыжов", "Цветков", "Шилов",
           "Юдин", "Добрынин", "Хохлов", "Эльдаров", "Мельник", "Гусь", "Ладыженский"],
}
GIVEN: dict[str, tuple[list[str], list[str]]] = {
    "de": (["Jörg", "Günther", "Uwe", "Sören", "Björn", "Lüder", "Jürgen", "Dieter", "Matthias", "Kai"],
           ["Käthe", "Dörte", "Annelie", "Ines", "Jutta", "Bärbel", "Friederike", "Lea"]),
    "pl": (["Łukasz", "Paweł", "Jędrzej", "Mikołaj", "Krzysztof", "Grzegorz", "Bartłomiej", "Maciej", "Zbigniew"],
           ["Małgorzata", "Żaneta", "Agnieszka", "Bożena", "Zofia", "Ewelina", "Urszula", "Jadwiga"]),
    "en": (["Tom", "Sean", "Daniel", "Erik", "Oliver", "Rahul", "Callum", "Joseph", "Liam"],
           ["Claire", "Elise", "Hannah", "Priya", "Megan", "Nora", "Ruth", "Abigail"]),
    "ru": (["Сергей", "Илья", "Пётр", "Дмитрий", "Эдуард", "Михаил", "Георгий", "Юрий", "Всеволод", "Фёдор"],
           ["Ольга", "Юлия", "Наталья", "Екатерина", "Софья", "Елизавета", "Жанна", "Людмила"]),
}
# The languages whose names an open in each form language draws (players come from abroad).
NAME_MIX = {"en": ["en", "en", "de", "pl"], "de": ["de", "de", "de", "pl", "en"], "pl": ["pl", "pl", "pl", "de"],
            "ru": ["ru"], "fr": ["en", "de", "pl"], "es": ["en", "de", "pl"]}

EVENTS: dict[str, list[str]] = {
    "en": ["Riverside Open", "County League Div 2", "Spring Congress", "Club Championship", "Northgate Rapidplay",
           "Junior Masters", "Harbour Chess Festival", "Millbrook Summer Open", "Team League R3", "Weekend Swiss"],
    "de": ["Bezirksliga Nord", "Stadtmeisterschaft", "Offene Vereinsmeisterschaft", "Oberliga Süd",
           "Kreispokal", "Jugendeinzelmeisterschaft", "Sommeropen Würzburg", "Landesliga Ost", "Schnellschach-Cup"],
    "pl": ["Mistrzostwa Województwa", "Turniej Klubowy", "Otwarte Mistrzostwa Łodzi", "Liga Juniorów",
           "Memoriał Kędzierskiego", "Festiwal Szachowy", "Puchar Gdańska", "Turniej Żaków", "II Liga Śląska"],
    "ru": ["Первенство города", "Кубок области", "Мемориал Щербакова", "Чемпионат клуба", "Первенство школы",
           "Открытый турнир", "Командный чемпионат", "Весенний фестиваль", "Турнир ветеранов"],
}

MONTHS = {
    "en": ["Jan", "Feb", "Mar", "Apr", "May", "June", "July", "Aug", "Sept", "Oct", "Nov", "Dec"],
    "de": ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober",
           "November", "Dezember"],
    "pl": ["stycznia", "lutego", "marca", "kwietnia", "maja", "czerwca", "lipca", "sierpnia", "września",
           "października", "listopada", "grudnia"],
    "ru": ["января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября", "октября",
           "ноября", "декабря"],
}
DAYS_IN = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

# Results as written on a labelled result line, by the PGN result; words by language.
RESULT_WRITTEN = {
    "1-0": ["1-0", "1-0", "1:0", "1 - 0"],
    "0-1": ["0-1", "0-1", "0:1", "0 - 1"],
    "1/2-1/2": ["½-½", "1/2-1/2", "0,5-0,5", "½", "½:½", "1/2"],
}
DRAW_WORDS = {"en": ["draw", "Draw"], "de": ["remis", "Remis"], "pl": ["remis", "Remis"], "ru": ["ничья", "Ничья"],
              "fr": ["nulle"], "es": ["tablas"]}


def _female_surname(s: str, lang: str) -> str:
    if lang == "ru" and re.search(r"(ов|ев|ёв|ин|ын)$", s):
        return s + "а"
    if lang == "ru" and s.endswith("ский"):
        return s[:-4] + "ская"
    if lang == "pl" and s.endswith("ski"):
        return s[:-1] + "a"
    return s


def name(lang: str, rng: random.Random) -> tuple[str, str]:
    """A player's name as written and as a PGN tag (`Surname, Given`, `Surname, G.` or
    `Surname`)."""
    src = rng.choice(NAME_MIX.get(lang, ["en"]))
    female = rng.random() < 0.3
    given = rng.choice(GIVEN[src][female])
    surname = rng.choice(SURNAMES[src])
    if female:
        surname = _female_surname(surname, src)
    initial = given[0] + "."
    style = rng.choices(["sg", "gs", "si", "is", "s", "s_g"], [3, 3, 2, 2, 1, 2])[0]
    written = {"sg": f"{surname}, {given}", "gs": f"{given} {surname}", "si": f"{surname} {initial}",
               "is": f"{initial} {surname}", "s": surname, "s_g": f"{surname} {given}"}[style]
    pgn = {"sg": f"{surname}, {given}", "gs": f"{surname}, {given}", "si": f"{surname}, {initial}",
           "is": f"{surname}, {initial}", "s": surname, "s_g": f"{surname}, {given}"}[style]
    return written, pgn


def event(lang: str, rng: random.Random, year: int) -> tuple[str, str]:
    e = rng.choice(EVENTS.get(lang, EVENTS["en"]))
    if rng.random() < 0.35:
        e = f"{e} {year}"
    return e, e


def date(lang: str, rng: random.Random) -> tuple[str, str, int]:
    """A date as written (`27/7/2020`, `02.02.2022`, `2 февраля 2022`, `2022-02-02` ...),
    its PGN form (`YYYY.MM.DD`, `??` for what is not written) and the year."""
    y, m = rng.randint(2012, 2025), rng.randint(1, 12)
    d = rng.randint(1, DAYS_IN[m - 1])
    pgn = f"{y:04d}.{m:02d}.{d:02d}"
    style = rng.choices(["slash", "dot0", "dot", "words", "iso", "dot_yy", "month_year"],
                        [3, 3, 2, 3 if lang in MONTHS else 0, 2, 1, 1])[0]
    if style == "slash":
        return f"{d}/{m}/{y}", pgn, y
    if style == "dot0":
        return f"{d:02d}.{m:02d}.{y}", pgn, y
    if style == "dot":
        return f"{d}.{m}.{y}", pgn, y
    if style == "words":
        sep = ". " if lang == "de" else " "
        return f"{d}{sep}{MONTHS[lang][m - 1]} {y}", pgn, y
    if style == "iso":
        return pgn.replace(".", "-"), pgn, y
    if style == "dot_yy":
        return f"{d:02d}.{m:02d}.{y % 100:02d}", pgn, y
    return f"{m:02d}.{y}", f"{y:04d}.{m:02d}.??", y


def round_no(rng: random.Random) -> tuple[str, str]:
    r = rng.randint(1, 11)
    return (f"{r}." if rng.random() < 0.1 else str(r)), str(r)


def board_no(rng: random.Random) -> tuple[str, str]:
    b = rng.choices([rng.randint(1, 12), rng.randint(1, 40), rng.randint(1, 120)], [3, 3, 2])[0]
    return str(b), str(b)


def result_written(result: str, lang: str, rng: random.Random) -> str:
    """How a player writes `result` (PGN) on a result line: `1-0`, `0:1`, `½-½`,
    `0,5-0,5`, `remis`, `ничья`, `draw` ..."""
    ways = list(RESULT_WRITTEN[result])
    if result == "1/2-1/2":
        ways += DRAW_WORDS.get(lang, []) * 2
    return rng.choice(ways)


# Reading a written field back into its PGN form (what a reader should output).
def pgn_date(text: str) -> str | None:
    """`YYYY.MM.DD` with `??` for parts not given, from a written or PGN date; None when
    `text` is no date."""
    t = text.strip().lower()
    if not t:
        return None
    m = re.fullmatch(r"(\d{4}|\?{4})[.\-/](\d{1,2}|\?\?)[.\-/](\d{1,2}|\?\?)", t)
    if m:
        return f"{m[1]}.{_two(m[2])}.{_two(m[3])}"
    m = re.fullmatch(r"(\d{4})[.\-/](\d{1,2})", t)
    if m:
        return f"{m[1]}.{int(m[2]):02d}.??"
    m = re.fullmatch(r"(\d{1,2})\s*[./]\s*(\d{1,2})\s*[./]\s*(\d{2}|\d{4})", t)
    if m:
        return f"{_year(m[3])}.{int(m[2]):02d}.{int(m[1]):02d}"
    m = re.fullmatch(r"(\d{1,2})\s*[./]\s*(\d{4})", t)
    if m:
        return f"{m[2]}.{int(m[1]):02d}.??"
    m = re.fullmatch(r"(\d{1,2})\.?\s+([^\d\s]+)\.?\s+(\d{2}|\d{4})", t)
    if m:
        month = _month(m[2])
        if month:
            return f"{_year(m[3])}.{month:02d}.{int(m[1]):02d}"
    m = re.fullmatch(r"(\d{4})", t)
    if m:
        return f"{m[1]}.??.??"
    return None


def _two(s: str) -> str:
    return s if s == "??" else f"{int(s):02d}"


def _year(s: str) -> str:
    return s if len(s) == 4 else f"20{s}"


def _month(word: str) -> int | None:
    w = word.strip(".").lower()
    for names in MONTHS.values():
        for i, n in enumerate(names):
            if n.lower() == w or (len(w) >= 3 and n.lower().startswith(w)):
                return i + 1
    return None


RESULT_CANON = {
    "1-0": "1-0", "1:0": "1-0", "0-1": "0-1", "0:1": "0-1", "1/2-1/2": "1/2-1/2", "½-½": "1/2-1/2",
    "½:½": "1/2-1/2", "½": "1/2-1/2", "1/2": "1/2-1/2", "0,5-0,5": "1/2-1/2", "0.5-0.5": "1/2-1/2",
    "0,5:0,5": "1/2-1/2", "=": "1/2-1/2", "remis": "1/2-1/2", "draw": "1/2-1/2", "ничья": "1/2-1/2",
    "nulle": "1/2-1/2", "tablas": "1/2-1/2",
}


def pgn_result(text: str) -> str | None:
    """`1-0`, `0-1` or `1/2-1/2` from a written result (`1:0`, `½`, `0,5-0,5`, `remis`,
    `ничья` ...); None when it is none of them (`*` and `?` included)."""
    t = re.sub(r"\s+", "", text.strip().lower())
    return RESULT_CANON.get(t)


def fold(text: str) -> str:
    """The form a name is compared in: NFC, case-folded, one space between words, no
    comma or full stop."""
    t = unicodedata.normalize("NFC", text).casefold().replace("ё", "е")
    t = re.sub(r"[,.]", " ", t)
    return " ".join(t.split())
