/// A rule could not be evaluated (type error, null where a value is needed, data unreadable):
/// the rule counts as false.
struct EvaluationError: Error {}
