// Being built (issue 3); see the issue note.
export {};
