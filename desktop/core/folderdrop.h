#pragma once

#include <QCoreApplication>
#include <QString>

class QDropEvent;
class QMimeData;

namespace ddl::desktop {

// What a drag from the file manager carries, checked for the drop targets that take one local
// folder (the datasets screen, the wizard's folder fields): the folder, or why it is refused.
class FolderDrop
{
    Q_DECLARE_TR_FUNCTIONS(FolderDrop)
public:
    static FolderDrop inspect(const QMimeData *mime);

    bool isFolder() const { return !folder.isEmpty(); }
    // Accepts the event (enter, move or drop) when this is a folder, else ignores it, so the
    // cursor says "not here" during the drag; true when accepted.
    bool answer(QDropEvent *event) const;

    QString folder;  // the local folder; empty when refused
    QString problem; // for the person: what was dropped and what to drop instead
};

} // namespace ddl::desktop
