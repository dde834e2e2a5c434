#include "ui/models/lesson_expect.h"

#include <QRegularExpression>
#include <cmath>

namespace moe::ui {

namespace {

// "{name}" or "{name:fmt}"; name and fmt are checked separately so errors can say which.
const QRegularExpression& fieldPattern() {
  static const QRegularExpression re(R"(\{([^{}:]*)(?::([^{}]*))?\})");
  return re;
}

bool knownFormat(const QString& f) {
  return f.isEmpty() || f == "%" || (f.size() == 1 && f[0] >= '0' && f[0] <= '3');
}

// A value as a lesson prints it: whole numbers without decimals, others with at most 3
// significant digits, unless the field names a format.
QString formatValue(double v, const QString& fmt) {
  if (fmt == "%") return QString::number(std::lround(v * 100)) + "%";
  if (!fmt.isEmpty()) return QString::number(v, 'f', fmt.toInt());
  if (std::fabs(v) >= 100 || (v == std::floor(v) && std::fabs(v) < 1e15))
    return QString::number(std::llround(v));
  return QString::number(v, 'g', 3);
}

bool holds(LessonCondition::Op op, double a, double b) {
  using O = LessonCondition::Op;
  switch (op) {
    case O::Ge:
      return a >= b;
    case O::Le:
      return a <= b;
    case O::Gt:
      return a > b;
    case O::Lt:
      return a < b;
    case O::Eq:
      return a == b;
    case O::Ne:
      return a != b;
  }
  return false;
}

}  // namespace

std::optional<LessonCondition> parseLessonCondition(const std::string& text, std::string& error) {
  static const QRegularExpression re(
      R"(^\s*([a-z_]+)\s*(>=|<=|==|!=|>|<)\s*(-?[0-9]+(?:\.[0-9]+)?)\s*$)");
  const QRegularExpressionMatch m = re.match(QString::fromStdString(text));
  if (!m.hasMatch()) {
    error = "must read \"<quantity> <op> <number>\" with op one of >=, <=, >, <, ==, !=";
    return std::nullopt;
  }
  LessonCondition c;
  c.text = text;
  c.quantity = findLessonQuantity(m.captured(1).toStdString());
  if (!c.quantity) {
    error = "unknown quantity \"" + m.captured(1).toStdString() +
            "\" (known: " + lessonQuantityNames() + ")";
    return std::nullopt;
  }
  const QString op = m.captured(2);
  using O = LessonCondition::Op;
  c.op = op == ">="   ? O::Ge
         : op == "<=" ? O::Le
         : op == ">"  ? O::Gt
         : op == "<"  ? O::Lt
         : op == "==" ? O::Eq
                      : O::Ne;
  c.value = m.captured(3).toDouble();
  return c;
}

std::string lessonTemplateError(const QString& narration) {
  auto it = fieldPattern().globalMatch(narration);
  while (it.hasNext()) {
    const QRegularExpressionMatch m = it.next();
    if (!findLessonQuantity(m.captured(1).toStdString()))
      return "unknown quantity \"{" + m.captured(1).toStdString() +
             "}\" (known: " + lessonQuantityNames() + ")";
    if (!knownFormat(m.captured(2)))
      return "unknown format \"" + m.captured(2).toStdString() + "\" in {" +
             m.captured(1).toStdString() + ":...} (use %, or 0-3 decimals)";
  }
  QString rest = narration;
  rest.remove(fieldPattern());
  if (rest.contains('{') || rest.contains('}'))
    return "a brace that is not a {quantity} or {quantity:format} field";
  return {};
}

std::vector<LessonCheck> checkLessonStep(const std::string& expectedStage,
                                         const std::vector<LessonCondition>& conditions,
                                         const LessonState& state) {
  std::vector<LessonCheck> out;
  out.push_back({"stage == " + expectedStage, state.snap.stage, state.snap.stage == expectedStage});
  for (const LessonCondition& c : conditions) {
    const double v = c.quantity->measure(state);
    out.push_back({c.text, formatValue(v, "").toStdString(), holds(c.op, v, c.value)});
  }
  return out;
}

QString fillLessonNarration(const QString& narration, const LessonState& state) {
  QString out;
  int from = 0;
  auto it = fieldPattern().globalMatch(narration);
  while (it.hasNext()) {
    const QRegularExpressionMatch m = it.next();
    out += narration.mid(from, m.capturedStart() - from);
    const LessonQuantity* q = findLessonQuantity(m.captured(1).toStdString());
    out += q ? formatValue(q->measure(state), m.captured(2)) : m.captured(0);
    from = m.capturedEnd();
  }
  out += narration.mid(from);
  return out;
}

}  // namespace moe::ui
