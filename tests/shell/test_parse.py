"""The structured view of a command line that the read-only classifier relies on."""

from __future__ import annotations

from nb_agent.shell.parse import parse_command


def _argv(command: str, index: int = 0) -> list[str]:
    return [word.value for word in parse_command(command).commands[index].argv]


def test_pipeline_and_lists_give_every_simple_command_in_order() -> None:
    parsed = parse_command("ls -la | grep x && pwd || echo no; sleep 1 & wc -l")
    names = [command.name for command in parsed.commands]
    assert names == ["ls", "grep", "pwd", "echo", "sleep", "wc"]
    assert parsed.analysable


def test_words_are_unquoted_and_literalness_is_tracked() -> None:
    command = "echo 'a b' \"c\\\"d\" e\\ f \"$HOME\" *.py src/*.py ~/x -n"
    words = parse_command(command).commands[0].argv
    assert [word.value for word in words[1:4]] == ["a b", 'c"d', "e f"]
    assert all(word.is_literal for word in words[:4])
    home, glob, prefixed_glob, tilde, flag = words[4:]
    assert home.has_expansion and not home.is_literal and home.may_be_option
    assert glob.has_glob and glob.may_be_option  # a file named `-rf` would match
    assert prefixed_glob.has_glob and not prefixed_glob.may_be_option
    assert not tilde.is_literal and not tilde.may_be_option
    assert flag.is_literal and flag.may_be_option


def test_unquoted_expansion_may_split_into_options() -> None:
    quoted, unquoted = parse_command('echo "pre$x" pre$x').commands[0].argv[1:]
    assert not quoted.may_be_option and not quoted.may_split
    assert unquoted.may_split and unquoted.may_be_option


def test_assignments_and_redirections_are_separated_from_argv() -> None:
    parsed = parse_command("LC_ALL=C sort f 2>/dev/null >out.txt 2>&1 < in.txt")
    command = parsed.commands[0]
    assert [word.value for word in command.argv] == ["sort", "f"]
    (assignment,) = command.assignments
    assert assignment.name == "LC_ALL" and assignment.value is not None
    assert assignment.value.value == "C"
    assert [(r.operator, r.fd, r.target.value if r.target else None) for r in parsed.redirects] == [
        (">", 2, "/dev/null"), (">", None, "out.txt"), (">&", 2, "1"), ("<", None, "in.txt"),
    ]


def test_words_after_a_redirection_belong_to_the_command() -> None:
    assert _argv("grep -r x 2>/dev/null src") == ["grep", "-r", "x", "src"]


def test_substitutions_are_flagged_wherever_they_hide() -> None:
    assert parse_command("echo $(id)").has_command_substitution
    assert parse_command('echo "a `id` b"').has_command_substitution
    assert parse_command("echo ${x:-$(id)}").has_command_substitution
    assert parse_command("diff <(ls a) b").has_process_substitution
    assert parse_command("echo $((1 + 2))").has_arithmetic
    assert not parse_command("echo '$(id)'").has_command_substitution


def test_only_plain_parameter_expansions_are_safe() -> None:
    for safe in ("${x}", "${#x}", "${x:-d}", "${x%.*}", "${x/a/b}", "${a[@]}"):
        assert not parse_command(f"echo {safe}").has_unsafe_expansion, safe
    for unsafe in ("${!x}", "${x:1}", "${x@P}", "${x:=1}", "${a[$i]}"):
        assert parse_command(f"echo {unsafe}").has_unsafe_expansion, unsafe


def test_compound_commands_expose_inner_commands_and_flags() -> None:
    parsed = parse_command('for f in *.csv; do wc -l "$f"; done; (cd x && ls); f() { rm y; }')
    assert [command.name for command in parsed.commands] == ["wc", "cd", "ls", "rm"]
    assert parsed.loop_variables == ("f",)
    assert parsed.has_compound and parsed.has_subshell and parsed.has_function_definition


def test_heredoc_body_and_quoting_and_the_rest_of_the_line() -> None:
    parsed = parse_command("cat <<'EOF' | grep a\n$(id)\nEOF")
    assert [command.name for command in parsed.commands] == ["cat", "grep"]
    (heredoc,) = parsed.heredocs
    assert heredoc.quoted and heredoc.delimiter == "EOF" and heredoc.body == "$(id)\n"
    assert not parse_command("cat <<EOF\nx\nEOF").heredocs[0].quoted


def test_test_commands_and_declarations_are_simple_commands() -> None:
    assert _argv("[[ -f x ]]") == ["[[", "-f", "x", "]]"]
    assert _argv("export A=1")[0] == "export"
    standalone = parse_command("X=1").commands[0]
    assert standalone.argv == () and standalone.assignments[0].name == "X"


def test_parse_errors_make_the_command_unanalysable() -> None:
    for broken in ('ls "unterminated', "ls (", "cat <> f", "if true; then ls"):
        parsed = parse_command(broken)
        assert parsed.has_parse_error and not parsed.analysable, broken


def test_spots_where_the_grammar_and_bash_disagree_are_problems() -> None:
    # Each parses without error, yet bash runs a command the tree does not show.
    for hidden in (
        "tr\\\nuncate -s 0 f",  # bash joins the lines: truncate
        "echo\n\\rm x",  # the grammar makes "\n\\rm" an argument of echo
        "cat <<'EOF'#x; rm y\nEOF#x",  # the delimiter is EOF#x; `rm y` runs
        "cat <<EOF;\nEOF\nrm x\nEOF;",  # the grammar takes `EOF;` as the delimiter
        "[rm]",  # a glob to bash, not a test
        "cat <<EOF\nEOF<<\nEOF\nrm x\nEOF",  # `EOF<<` does not end the heredoc for bash
    ):
        assert not parse_command(hidden).analysable, hidden
    assert parse_command("ls -la \\\n  | head").analysable  # a plain continuation
