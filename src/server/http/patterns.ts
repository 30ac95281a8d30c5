/** Text patterns shared by request schemas: ids and names never carry C0/C1 control characters. */
export const NO_CONTROL = "^[^\\u0000-\\u001f\\u007f-\\u009f]+$";
/** The same, empty allowed (a search that is not given). */
export const NO_CONTROL_OR_EMPTY = "^[^\\u0000-\\u001f\\u007f-\\u009f]*$";
