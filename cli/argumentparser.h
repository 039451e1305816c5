#pragma once

#include "core/result.h"

#include <QCoreApplication>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace ddl::cli {

// One option a command accepts. Names are written without dashes, as users see them
// ("job_uuid", "ca-cert"); '-' and '_' are interchangeable when users type them.
struct OptionSpec
{
    QString name;
    QString valueName; // empty: a flag that takes no value
    QString description;
    QChar shortName; // optional single-letter alias ("-f")
    bool required = false;
    // The seeds' command lines: "--env A=1 --env B=2" keeps every value (ParsedArguments::
    // values), and "--use-gpu" alone means "--use-gpu=true" (the value only after '=').
    bool repeatable = false;
    bool valueOptional = false;

    bool takesValue() const { return !valueName.isEmpty(); }

    // An option that takes a value (or none, with an empty valueName), not required.
    static OptionSpec
    make(const QString &name, const QString &valueName, const QString &description)
    {
        OptionSpec spec;
        spec.name = name;
        spec.valueName = valueName;
        spec.description = description;
        return spec;
    }
};

// What the command line said: option values by their spec name, plus positional arguments.
class ParsedArguments
{
public:
    bool isSet(const QString &name) const { return m_values.contains(name); }
    QString value(const QString &name, const QString &defaultValue = {}) const
    {
        return m_values.value(name, defaultValue);
    }
    // Every value a repeatable option was given, in order (the last one alone for others).
    QStringList values(const QString &name) const
    {
        return m_lists.contains(name) ? m_lists.value(name)
                                      : (isSet(name) ? QStringList{value(name)} : QStringList());
    }
    void setValue(const QString &name, const QString &value) { m_values.insert(name, value); }
    void addValue(const QString &name, const QString &value)
    {
        m_values.insert(name, value);
        m_lists[name].append(value);
    }
    const QStringList &positional() const { return m_positional; }
    void addPositional(const QString &argument) { m_positional.append(argument); }

private:
    QHash<QString, QString> m_values;
    QHash<QString, QStringList> m_lists;
    QStringList m_positional;
};

// Parses "--flag=value", "--flag value", "--flag" and "-f" against the given specs. Unknown
// options, missing values and missing required options are errors with code "usage" that name
// the option (an unknown one with the nearest known name); "--" ends the options. The Paddle
// seed's "--base-image:IMAGE" is read as "--base-image=IMAGE" for an option that takes a value.
class ArgumentParser
{
    Q_DECLARE_TR_FUNCTIONS(ArgumentParser)
public:
    static Result<ParsedArguments> parse(const QStringList &arguments,
                                         const QList<OptionSpec> &specs);

    // The first argument that is not an option or the value of one of the given options: the
    // command name in "ddlcli --server URL submit ...". Returns -1 when there is none.
    static qsizetype findCommand(const QStringList &arguments, const QList<OptionSpec> &specs);

    // "--name=VALUE" / "--name" as shown in help and errors.
    static QString displayName(const OptionSpec &spec);

    // Help text for a list of options, one per line, aligned.
    static QString describe(const QList<OptionSpec> &specs);
};

} // namespace ddl::cli
