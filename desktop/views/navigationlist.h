#pragma once

#include <QListWidget>

class QTabWidget;

namespace ddl::desktop {

// The window's left navigation, as the OpenPAI portal has it: the fixed pages (Jobs, Editor,
// Workers, Datasets) always in view, then the open jobs, however many there are. It mirrors a
// QTabWidget whose own tab bar is hidden, so the workspace stays one tab widget to the code.
// A page whose tab has a close button is an open job: it can be closed from here.
class NavigationList : public QListWidget
{
    Q_OBJECT
public:
    static constexpr int PageRole = Qt::UserRole + 1;

    explicit NavigationList(QTabWidget *workspace, QWidget *parent = nullptr);

    // Reads the workspace's pages and titles again (after a page is added, removed or renamed).
    void sync();
    // The same, once, when control returns to the event loop (coalesces bursts of changes).
    void scheduleSync();

signals:
    void closeRequested(int workspaceIndex);

protected:
    void mouseReleaseEvent(QMouseEvent *event) override;

private:
    bool isClosable(int workspaceIndex) const;
    void showCurrent(int workspaceIndex);
    void showContextMenu(const QPoint &position);
    int workspaceIndexAt(const QPoint &position) const;

    QTabWidget *m_workspace;
    bool m_syncPending = false;
};

} // namespace ddl::desktop
