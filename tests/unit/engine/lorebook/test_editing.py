"""The lorebook editor's pure helpers: key splitting, decorator lines, LORE-6 sorting, edits."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.web.app_lore import entry_view
from engine.errors import InvalidInput, NotFound
from engine.lorebook import Decorator, LoreBook, LoreEntry, validate_book
from engine.lorebook.editing import (
    EntryEdit,
    apply_entry_edit,
    display_name,
    parse_decorators,
    remove_entry,
    sorted_entries,
    split_keys,
)

BOOK = LoreBook(
    id="lb-1",
    name="Eldoria",
    entries=(
        LoreEntry(id="0", keys=("eldoria", "wood"), content="The forest.", comment=""),
        LoreEntry(id="1", keys=("shadowfang",), content="Beasts.", comment="beasts", priority=100),
        LoreEntry(id="2", keys=("glade",), content="A refuge.", comment="Glade 10"),
        LoreEntry(id="3", keys=("glade",), content="Another.", comment="Glade 9"),
    ),
)


def test_lore_6_entries_sort_by_display_name_case_insensitively_numbers_in_order() -> None:
    assert [display_name(e) for e in sorted_entries(BOOK.entries)] == [
        "beasts",
        "eldoria",
        "Glade 9",
        "Glade 10",
    ]


def test_lore_6_display_name_falls_back_to_the_first_key_then_the_id() -> None:
    assert display_name(LoreEntry(id="7", keys=("dragon",))) == "dragon"
    assert display_name(LoreEntry(id="7")) == "entry 7"


@pytest.mark.parametrize(
    ("raw", "keys"),
    [
        ("dragon, wyrm ,  drake", ("dragon", "wyrm", "drake")),
        ("dragon,,", ("dragon",)),
        ("/dra(g|k)on/i, wyrm", ("/dra(g|k)on/i", "wyrm")),
        ("/a{1,3}b/, c", ("/a{1,3}b/", "c")),  # a comma inside a regex key stays in it
        (r"/a\/b,c/i, d", (r"/a\/b,c/i", "d")),
        ("", ()),
    ],
)
def test_lore_3_keys_are_comma_separated_except_inside_regex_keys(raw: str, keys: tuple[str, ...]) -> None:
    assert split_keys(raw) == keys


plain_keys = st.lists(
    st.text(st.characters(blacklist_characters=",/", blacklist_categories=("Cs", "Cc", "Zs")), min_size=1),
    max_size=6,
)


@given(plain_keys)
def test_joined_keys_split_back(keys: list[str]) -> None:
    assert split_keys(", ".join(keys)) == tuple(keys)


def test_lore_10_decorator_lines_parse_and_anything_else_is_refused() -> None:
    assert parse_decorators("@@probability 50\n\n  @@keep  ") == (
        Decorator(name="probability", value="50"),
        Decorator(name="keep"),
    )
    with pytest.raises(InvalidInput) as caught:
        parse_decorators("@@keep\nprobability 50")
    assert caught.value.code == "invalid_decorator_line"


def test_editing_an_entry_changes_what_the_editor_shows_and_keeps_the_rest() -> None:
    rich = LoreEntry(id="1", keys=("x",), extensions=(("depth", "4"),), probability=30, use_regex=False)
    book = LoreBook(id="b", entries=(rich,))
    edit = EntryEdit(
        comment=" Beasts ",
        keys="shadowfang, beast",
        secondary_keys="night",
        content="They hunt at night.",
        decorators="@@role user",
        priority=7,
        order=3,
        role="assistant",
    )
    changed, entry = apply_entry_edit(book, "1", edit)
    assert changed.entries == (entry,)
    assert (entry.comment, entry.keys, entry.secondary_keys, entry.selective) == (
        "Beasts",
        ("shadowfang", "beast"),
        ("night",),
        True,
    )
    assert (entry.priority, entry.order, entry.role, entry.decorators) == (
        7,
        3,
        "assistant",
        (Decorator(name="role", value="user"),),
    )
    assert (entry.extensions, entry.probability) == (rich.extensions, 30)  # unknown fields survive
    validate_book(changed)
    view = entry_view(entry)
    assert view.decorators == "@@role user" and view.keys == "shadowfang, beast" and view.tokens > 0


def test_a_new_entry_gets_the_next_numeric_id_and_a_deleted_one_is_gone() -> None:
    changed, entry = apply_entry_edit(BOOK, None, EntryEdit(keys="river", content="Water."))
    assert entry.id == "4" and changed.entries[-1] == entry
    assert [e.id for e in remove_entry(changed, "1").entries] == ["0", "2", "3", "4"]


def test_editing_or_removing_a_missing_entry_is_not_found() -> None:
    with pytest.raises(NotFound):
        apply_entry_edit(BOOK, "99", EntryEdit())
    with pytest.raises(NotFound):
        remove_entry(BOOK, "99")


def test_a_bad_regex_key_is_caught_by_validate_book_before_storing() -> None:
    changed, _ = apply_entry_edit(BOOK, "0", EntryEdit(keys="/(unclosed/"))
    with pytest.raises(InvalidInput) as caught:
        validate_book(changed)
    assert caught.value.code == "invalid_regex_key"


def test_lore_22_the_editor_sets_and_keeps_the_sillytavern_options() -> None:
    edit = EntryEdit(
        keys="fog",
        content="Fog.",
        sticky=3,
        cooldown=2,
        delay=1,
        group="weather, sky",
        group_override=True,
        group_weight=40,
        use_group_scoring="on",
        delay_until_recursion=2,
        match_whole_words="substring",
        case_sensitive="book",
        scan_depth=4,
    )
    changed, saved = apply_entry_edit(BOOK, "0", edit)
    assert (saved.sticky, saved.cooldown, saved.delay, saved.group) == (3, 2, 1, "weather, sky")
    assert (saved.group_override, saved.group_weight, saved.use_group_scoring) == (True, 40, True)
    assert (saved.delay_until_recursion, saved.match_whole_words, saved.case_sensitive) == (2, False, None)
    assert saved.scan_depth == 4
    # Fields the edit leaves out keep their value; clear_scan_depth returns to the book's depth.
    _, again = apply_entry_edit(changed, "0", EntryEdit(keys="fog", content="Fog.", clear_scan_depth=True))
    assert (again.sticky, again.group, again.scan_depth) == (3, "weather, sky", None)
    with pytest.raises(InvalidInput):
        apply_entry_edit(BOOK, "0", EntryEdit(sticky=-1))


def test_lore_21_an_imported_bad_regex_elsewhere_does_not_block_editing_another_entry() -> None:
    imported, _ = apply_entry_edit(BOOK, "1", EntryEdit(keys="/(?<=a)b/, owl", content="Owls."))
    changed, saved = apply_entry_edit(imported, "0", EntryEdit(keys="fog", content="Fog."))
    validate_book(changed, only=saved.id)  # the entry being saved is fine
    with pytest.raises(InvalidInput) as caught:
        validate_book(changed, only="1")
    assert caught.value.code == "invalid_regex_key"
