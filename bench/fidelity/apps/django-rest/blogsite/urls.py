from django.conf import settings
from django.http import FileResponse, Http404
from django.urls import include, path


def session_page(request):
    """The recorded session's page, from the API's own origin (the harness names the file)."""
    if not settings.CAPSTATE_SESSION_PAGE:
        raise Http404('no session page')
    return FileResponse(open(settings.CAPSTATE_SESSION_PAGE, 'rb'), content_type='text/html; charset=utf-8')


urlpatterns = [
    path('api/', include('blog.urls')),
    path('capstate-fidelity-session.html', session_page),
]
