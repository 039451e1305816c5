#pragma once

#include <QCoreApplication>
#include <QStringList>

#include <functional>

class QWidget;

namespace ddl::desktop {

// Asks before jobs are stopped, naming them; "Keep running" is the default and Escape, so a
// stray Enter or Space never stops a job. Window-modal and asynchronous (no nested event loop):
// onConfirmed runs only if the person chose to stop.
class StopConfirmation
{
    Q_DECLARE_TR_FUNCTIONS(StopConfirmation)
public:
    static constexpr const char *ObjectName = "stopConfirmation";

    static void
    ask(QWidget *parent, const QStringList &jobNames, std::function<void()> onConfirmed);
};

} // namespace ddl::desktop
