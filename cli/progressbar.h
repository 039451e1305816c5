#pragma once

#include "api/transferprogress.h"

#include <QElapsedTimer>
#include <QString>

namespace ddl::cli {

class Console;

// A one-line transfer progress bar redrawn on stderr, shown only when stderr is a terminal.
class ProgressBar
{
public:
    ProgressBar(Console &console, const QString &label);

    // Redraws at most ten times a second (and always when the transfer is complete).
    void update(const TransferProgress &progress);
    // Ends the line of the bar, if one was drawn.
    void finish();

    // "label  [#####.....]  50%  1.0 MiB/2.0 MiB  512.0 KiB/s  ETA 2s"
    static QString render(const QString &label, const TransferProgress &progress);

private:
    Console &m_console;
    QString m_label;
    QElapsedTimer m_sinceDraw;
    bool m_drawn = false;
};

} // namespace ddl::cli
