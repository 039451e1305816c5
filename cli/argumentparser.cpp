#include "argumentparser.h"

#include <algorithm>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

static QString normalisedName(QStringView name)
{
    QString result = name.toString();
    result.replace(u'-', u'_');
    return result;
}

static const OptionSpec *findLong(const QList<OptionSpec> &specs, QStringView name)
{
    const QString wanted = normalisedName(name);
    for (const OptionSpec &spec : specs) {
        if (normalisedName(spec.name) == wanted)
            return &spec;
    }
    return nullptr;
}

static const OptionSpec *findShort(const QList<OptionSpec> &specs, QChar name)
{
    for (const OptionSpec &spec : specs) {
        if (!spec.shortName.isNull() && spec.shortName == name)
            return &spec;
    }
    return nullptr;
}

// Levenshtein distance, for "did you mean": option names are short, so O(n*m) is nothing.
static qsizetype editDistance(const QString &a, const QString &b)
{
    QList<qsizetype> previous(b.size() + 1);
    for (qsizetype j = 0; j <= b.size(); ++j)
        previous[j] = j;
    for (qsizetype i = 1; i <= a.size(); ++i) {
        QList<qsizetype> current(b.size() + 1);
        current[0] = i;
        for (qsizetype j = 1; j <= b.size(); ++j) {
            const qsizetype substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
        }
        previous = current;
    }
    return previous[b.size()];
}

// The known option nearest to a mistyped one, when it is near enough to be what was meant.
static const OptionSpec *nearest(const QList<OptionSpec> &specs, QStringView name)
{
    const QString wanted = normalisedName(name);
    const OptionSpec *best = nullptr;
    qsizetype bestDistance = std::max<qsizetype>(2, wanted.size() / 4) + 1;
    for (const OptionSpec &spec : specs) {
        const qsizetype distance = editDistance(wanted, normalisedName(spec.name));
        if (distance < bestDistance) {
            best = &spec;
            bestDistance = distance;
        }
    }
    return best;
}

static Error usageError(const QString &message, const QString &field = {})
{
    return Error::make(ErrorCode::Usage, message, field);
}

QString ArgumentParser::displayName(const OptionSpec &spec)
{
    if (spec.takesValue() && spec.valueOptional)
        return u"--"_s + spec.name + u"[="_s + spec.valueName + u']';
    if (spec.takesValue())
        return u"--"_s + spec.name + u'=' + spec.valueName;
    return u"--"_s + spec.name;
}

Result<ParsedArguments> ArgumentParser::parse(const QStringList &arguments,
                                              const QList<OptionSpec> &specs)
{
    ParsedArguments parsed;
    bool optionsEnded = false;
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QString &argument = arguments.at(i);
        if (optionsEnded || argument == u"-"_s || !argument.startsWith(u'-')) {
            parsed.addPositional(argument);
            continue;
        }
        if (argument == u"--"_s) {
            optionsEnded = true;
            continue;
        }

        const OptionSpec *spec = nullptr;
        QString shown;
        std::optional<QString> inlineValue;
        if (argument.startsWith(u"--"_s)) {
            const QStringView body = QStringView(argument).mid(2);
            qsizetype equals = body.indexOf(u'=');
            // "--base-image:IMAGE", as the Paddle seed writes it.
            if (const qsizetype colon = body.indexOf(u':');
                colon > 0 && (equals < 0 || colon < equals)) {
                const OptionSpec *known = findLong(specs, body.left(colon));
                if (known && known->takesValue())
                    equals = colon;
            }
            const QStringView name = equals < 0 ? body : body.left(equals);
            if (equals >= 0)
                inlineValue = body.mid(equals + 1).toString();
            shown = u"--"_s + name.toString();
            spec = findLong(specs, name);
            if (!spec) {
                if (const OptionSpec *guess = nearest(specs, name)) {
                    return usageError(
                        tr("unknown option %1 (did you mean %2?)").arg(shown, displayName(*guess)),
                        shown);
                }
            }
        } else {
            // "-f" or "-fVALUE"
            shown = argument.left(2);
            spec = findShort(specs, argument.at(1));
            if (argument.size() > 2)
                inlineValue = argument.mid(2);
        }
        if (!spec) {
            return usageError(tr("unknown option %1").arg(shown), shown);
        }

        QString value;
        if (spec->takesValue()) {
            if (inlineValue) {
                value = *inlineValue;
            } else if (spec->valueOptional) {
                value = u"true"_s;
            } else if (i + 1 < arguments.size() && !arguments.at(i + 1).startsWith(u"--"_s)) {
                value = arguments.at(++i);
            } else {
                return usageError(tr("%1 needs a value (%2)").arg(shown, displayName(*spec)),
                                  spec->name);
            }
            if (value.isEmpty()) {
                return usageError(
                    tr("%1 needs a non-empty value (%2)").arg(shown, displayName(*spec)),
                    spec->name);
            }
        } else if (inlineValue) {
            return usageError(tr("%1 takes no value").arg(shown), spec->name);
        }
        if (spec->repeatable)
            parsed.addValue(spec->name, value);
        else
            parsed.setValue(spec->name, value);
    }

    for (const OptionSpec &spec : specs) {
        if (spec.required && !parsed.isSet(spec.name)) {
            return usageError(tr("missing required option %1").arg(displayName(spec)), spec.name);
        }
    }
    return parsed;
}

qsizetype ArgumentParser::findCommand(const QStringList &arguments, const QList<OptionSpec> &specs)
{
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QString &argument = arguments.at(i);
        if (argument == u"--"_s)
            return i + 1 < arguments.size() ? i + 1 : -1;
        if (!argument.startsWith(u'-') || argument == u"-"_s)
            return i;
        if (argument.startsWith(u"--"_s) && !argument.contains(u'=')) {
            const OptionSpec *spec = findLong(specs, QStringView(argument).mid(2));
            if (spec && spec->takesValue())
                ++i; // skip its value
        }
    }
    return -1;
}

QString ArgumentParser::describe(const QList<OptionSpec> &specs)
{
    QStringList names;
    qsizetype width = 0;
    for (const OptionSpec &spec : specs) {
        QString name = displayName(spec);
        if (!spec.shortName.isNull())
            name = u'-' + spec.shortName + u", "_s + name;
        width = std::max(width, name.size());
        names.append(name);
    }
    QString text;
    for (qsizetype i = 0; i < specs.size(); ++i) {
        text += u"  "_s + names.at(i).leftJustified(width + 2) + specs.at(i).description;
        if (specs.at(i).required)
            text += u' ' + tr("(required)");
        text += u'\n';
    }
    return text;
}

} // namespace ddl::cli
