"""AskUserQuestion (Claude Code's schema): one to four multiple-choice questions.

The question is put to the user through the permission callback, as in Claude Code:
the tool always asks (no mode or rule answers for the user), and the frontend answers
with an *allow* whose ``updated_input`` carries ``answers`` (question text -> the chosen
labels, comma-separated, or the user's own text). ``call`` only reports them. A
frontend that cannot show the question denies the call with a message saying nobody
can answer, so the model carries on with an assumption instead of waiting.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from nb_agent.errors import ToolError
from nb_agent.tools.base import ProgressCallback, ToolResult, ToolUseContext
from nb_agent.tools.interaction.base import UserPromptTool

MAX_HEADER_CHARS = 12
OTHER_LABEL = "Other"

PROMPT = """\
Use this tool when you need to ask the user questions during execution. This allows you to:
1. Gather user preferences or requirements
2. Clarify ambiguous instructions
3. Get decisions on implementation choices as you work
4. Offer choices to the user about what direction to take.

Usage notes:
- Users will always be able to select "Other" to provide custom text input
- Use multiSelect: true to allow multiple answers to be selected for a question
- If you recommend a specific option, make that the first option in the list and add "(Recommended)" at the end of the label
- Do not use it to ask whether a plan is ready: use ExitPlanMode for that"""


class QuestionOption(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: str = Field(min_length=1, description="The display text for this option (1-5 words)")
    description: str = Field(description="Explanation of what this option means or what will happen if chosen")


class Question(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, description="The complete question to ask the user; ends with a question mark")
    header: str = Field(
        min_length=1, max_length=MAX_HEADER_CHARS, description="Very short label displayed as a chip/tag (max 12 chars)"
    )
    options: list[QuestionOption] = Field(min_length=2, max_length=4, description="The available choices (2-4)")
    multiSelect: bool = Field(  # Claude Code's field name
        default=False, description="Set to true to allow the user to select multiple options"
    )


class AskUserQuestionInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    questions: list[Question] = Field(min_length=1, max_length=4, description="Questions to ask the user (1-4 questions)")
    answers: dict[str, str] | None = Field(default=None, description="User answers collected by the permission component")

    @model_validator(mode="after")
    def _distinct(self) -> AskUserQuestionInput:
        texts = [q.question for q in self.questions]
        if len(set(texts)) != len(texts):
            raise ValueError("question texts must be unique")
        for q in self.questions:
            labels = [o.label for o in q.options]
            if len(set(labels)) != len(labels):
                raise ValueError(f"option labels must be unique within a question ({q.header!r})")
        return self


def answers_text(answers: dict[str, str]) -> str:
    pairs = ", ".join(f'"{question}"="{answer}"' for question, answer in answers.items())
    return f"User has answered your questions: {pairs}. You can now continue with the user's answers in mind."


class AskUserQuestionTool(UserPromptTool):
    name = "AskUserQuestion"
    input_model = AskUserQuestionInput
    ask_message = "Answer the agent's questions"
    answer_fields = ("answers",)

    def prompt(self) -> str:
        return PROMPT

    async def call(self, input: AskUserQuestionInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        if not input.answers:
            raise ToolError("The user was not asked or gave no answer. Do not assume one: ask again or stop.")
        return ToolResult(
            data={
                "questions": [q.model_dump() for q in input.questions],
                "answers": dict(input.answers),
                "message": answers_text(input.answers),
            }
        )
