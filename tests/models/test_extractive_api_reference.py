"""An API reference as Sphinx writes it (autodoc, types in the description): each entry's
fields end where the next entry begins, so a reply never opens one entry with the last field
of the entry before."""

from __future__ import annotations

from docqa.models.extractive import reply
from docqa.models.units import units
from docqa.prompt import Passage

# Jinja's manual (python-jinja2-doc), api.html, as docqa reads it: a parameter without a
# description keeps Sphinx's separator ("parent (Optional[str]) –")
REFERENCE = Passage(
    "api#high-level-api-p7",
    "API > High Level API",
    "get_or_select_template(template_name_or_list, parent=None, globals=None): Use "
    "select_template() if an iterable of template names is given, or get_template() if one "
    "name is given.\n\n"
    "Parameters: template_name_or_list (Union[str, Template]) \u2013\n\n"
    "parent (Optional[str]) \u2013\n\n"
    "globals (Optional[MutableMapping[str, Any]]) \u2013\n\n"
    "Return type: Template\n\n"
    "get_template(name, parent=None, globals=None): Load a template by name with loader and "
    "return a Template. If the template does not exist a TemplateNotFound exception is "
    "raised.\n\n"
    "Parameters: name (Union[str, Template]) \u2013 Name of the template to load.\n\n"
    "Return type: Template\n\n"
    "property env: str: What environment the app is running in.",
)


def test_an_entry_of_an_api_reference_is_a_unit_of_its_own() -> None:
    texts = [u.text for u in units(REFERENCE, 0)]
    # the entry's description opens its unit: not glued under the fields before it
    assert (
        "get_template(name, parent=None, globals=None): Load a template by name with loader "
        "and return a Template." in texts
    )
    assert "property env: str: What environment the app is running in." in texts
    assert not any(t.startswith("Return type: Template\n") for t in texts)
    # a parameter without a description is no sentence going on into the next one
    assert "Parameters: template_name_or_list (Union[str, Template])" in texts
    assert not any("\u2013\n" in t for t in texts)


def test_a_parameter_without_a_description_defines_nothing() -> None:
    under = {u.text: u.under for u in units(REFERENCE, 0)}
    # read as a definition list's term, "globals (...)" would name the entry after it
    assert not any(
        term.startswith(("parent", "globals", "template_name")) for term in under.values()
    )
    # the entry's own later sentence stands under the entry
    assert under["If the template does not exist a TemplateNotFound exception is raised."] == (
        "get_template(name, parent=None, globals=None)"
    )


def test_a_reply_quotes_the_entry_without_the_field_before_it() -> None:
    answer = reply("How do I load a template by name?", [REFERENCE])
    assert "get_template(name, parent=None, globals=None): Load a template by name" in answer
    assert "Return type: Template\nget_template" not in answer
    assert "Return type: Template get_template" not in answer


def test_a_protocol_request_still_reads_its_argument_lines_as_its_signature() -> None:
    # a request's argument line ("drawable: Drawable region: Region") and its description still
    # stand under the request's name: only a term with an argument list, or a property, opens
    # an entry of its own
    x11 = Passage(
        "damageproto#9-enable-monitoring",
        "DAMAGE Extension > Enable Monitoring",
        "Damage objects are created by the client.\n\nDamageAdd\n\n"
        "drawable: Drawable region: Region\n\n"
        "Reports damage of the region within the given drawable.",
    )
    under = {u.text: u.under for u in units(x11, 0)}
    assert under["DamageAdd: drawable: Drawable region: Region"] == "DamageAdd"
    assert under["Reports damage of the region within the given drawable."] == "DamageAdd"


def test_later_sentences_of_a_paragraph_opening_with_its_term_stand_under_it() -> None:
    # ssh(1)'s options as the manual-page reader gives them: quoted alone, the second sentence
    # lost the option it describes ("Causes ssh to print debugging messages ...")
    options = Passage(
        "ssh#description-p8",
        "SSH(1) > DESCRIPTION",
        "-V: Display the version number and exit.\n\n-v: Verbose mode. Causes ssh to print "
        "debugging messages about its progress. This is helpful in debugging connection "
        "problems.",
    )
    under = {u.text: u.under for u in units(options, 0)}
    assert under["Causes ssh to print debugging messages about its progress."] == "-v"
    assert under["-v: Verbose mode."] == "-v"
    answer = reply("How do I print debugging messages about the progress?", [options])
    assert "-v: Causes ssh to print debugging messages" in answer
    # quoted together, the term is said once
    both = reply("What does verbose mode do and does it print debugging messages?", [options])
    assert both.count("-v:") == 1 and "Verbose mode. Causes ssh" in both
    # plain words before a colon name nothing ("Note: ..."): no term is said
    note = Passage("a#b", "A > B", "Note: the file is read once. It is cached after that.")
    assert all(u.under == "" for u in units(note, 0))


def test_later_sentences_of_a_sphinx_parameter_stand_under_the_parameter() -> None:
    # Click's manual (python-click-doc), api.html: quoted alone, "Defaults to ..." said no
    # parameter; a list's first parameter follows the list's name ("Parameters: ...")
    fields = Passage(
        "api#decorators",
        "API > Decorators",
        "click.version_option(version=None, message=None): Add a --version option which "
        "immediately prints the version number and exits the program.\n\n"
        "Parameters: version (Optional[str]) \u2013 The version number to show. If not "
        "provided, Click will try to detect it.\n\n"
        "message (Optional[str]) \u2013 The message to show. The values %(prog)s and "
        '%(version)s are available. Defaults to "%(prog)s, version %(version)s".\n\n'
        "kwargs (Any) \u2013 Extra arguments are passed to option().",
    )
    under = {u.text: u.under for u in units(fields, 0)}
    assert under['Defaults to "%(prog)s, version %(version)s".'] == "message (Optional[str])"
    assert under["If not provided, Click will try to detect it."] == "version (Optional[str])"
    # a one-sentence field says its name itself; the entry's own sentence stands under nothing
    assert under["kwargs (Any) \u2013 Extra arguments are passed to option()."] == ""
    answer = reply("Which message is shown by default with prog and version?", [fields])
    assert 'message (Optional[str]): Defaults to "%(prog)s, version %(version)s".' in answer
    # a dash inside a sentence opens no field
    prose = Passage("a#b", "A > B", "Run it once \u2013 then again. It is cached after that.")
    assert all(u.under == "" for u in units(prose, 0))
