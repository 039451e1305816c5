#include "bytesize.h"

#include <QRegularExpression>

#include <cmath>

using namespace Qt::StringLiterals;

namespace ddl::worker {

Result<qint64> parseByteSize(const QString &text)
{
    static const QRegularExpression pattern(u"^\\s*(\\d+(?:\\.\\d+)?)\\s*([KMGT]?)(?:I?B)?\\s*$"_s,
                                            QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch match = pattern.match(text);
    if (!match.hasMatch()) {
        return Error::make(ErrorCode::InvalidSize,
                           u"'%1' is not a size; write a number of bytes with an optional K, M, "
                           u"G or T (powers of 1024), such as 20G"_s.arg(text));
    }
    static const QString units = u"KMGT"_s;
    const QString unit = match.captured(2).toUpper();
    const int power = unit.isEmpty() ? 0 : int(units.indexOf(unit)) + 1;
    const double bytes = match.captured(1).toDouble() * std::pow(1024.0, power);
    if (bytes >= 9.0e18)
        return Error::make(ErrorCode::InvalidSize, u"'%1' is too large"_s.arg(text));
    return qint64(std::llround(bytes));
}

QString formatByteSize(qint64 bytes)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024)
        return u"%1 B"_s.arg(bytes);
    double value = double(bytes);
    int unit = -1;
    while (value >= 1024.0 && unit < 3) {
        value /= 1024.0;
        ++unit;
    }
    return u"%1 %2"_s.arg(value, 0, 'f', 1).arg(QLatin1StringView(units[unit]));
}

} // namespace ddl::worker
